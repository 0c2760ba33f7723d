//! Sending a served file's bytes from the file (`sendfile(2)`) instead of copying them from
//! memory, as nginx does: for a served master (about 200 KB) the copy into the socket was the
//! largest part of its cost.
//!
//! hyper writes an answer's head and body through the connection's stream as buffers. A
//! connection has a [`SendSlot`]: when the answer being written is a stored file read whole
//! and given with its open file ([`SameFile`]), the slot holds it, and a write of buffers that
//! lie inside that file's bytes in memory (the very buffer the body holds, found by address)
//! sends the same range from the file instead. What precedes them (the head) is sent first,
//! marked as having more to follow, so that it leaves with the file's first bytes.
//!
//! The bytes on the wire are the same either way: the file was checked to be the one the
//! bytes were read from, and stored files are never written in place. Should the file give
//! fewer bytes than asked (someone truncated it since), the rest is written from memory. Any
//! other buffer, any failure of the call, and every system without `sendfile` take the
//! ordinary write. Only HTTP/1 answers use the slot; HTTP/2 frames its data itself.

use std::io;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use blogread_core::media::SameFile;
use tokio::net::TcpStream;

/// The file the answer being written on a connection can be sent from, if any.
#[derive(Debug, Default)]
pub(crate) struct SendSlot {
    current: Mutex<Option<SameFile>>,
    /// Bytes sent from files on this connection (what the tests check).
    #[cfg(test)]
    sent_from_file: std::sync::atomic::AtomicUsize,
}

/// Where a write meets the slot's file: the buffers before it, and the range of the file the
/// next buffer is.
struct Found {
    before: usize,
    offset: usize,
    len: usize,
    file: Arc<std::fs::File>,
    file_len: usize,
}

impl SendSlot {
    /// The answer about to be written is `same`'s bytes.
    pub(crate) fn set(&self, same: SameFile) {
        *self.lock() = Some(same);
    }

    fn clear(&self) {
        *self.lock() = None;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<SameFile>> {
        // Every change is one assignment: a poisoned lock holds a whole value.
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The first of `bufs` that lies inside the slot's bytes, if any.
    fn find(&self, bufs: &[io::IoSlice<'_>]) -> Option<Found> {
        let current = self.lock();
        let same = current.as_ref()?;
        let start = same.bytes.as_ptr() as usize;
        let end = start + same.bytes.len();
        bufs.iter().enumerate().find_map(|(before, buf)| {
            let at = buf.as_ptr() as usize;
            (!buf.is_empty() && at >= start && at + buf.len() <= end).then(|| Found {
                before,
                offset: at - start,
                len: buf.len(),
                file: Arc::clone(&same.file),
                file_len: same.bytes.len(),
            })
        })
    }

    /// Writes `bufs` to `stream` the way this module says, when they meet the slot's file;
    /// `None` when they do not (or sending from the file failed): the caller writes them as
    /// usual.
    #[cfg(target_os = "linux")]
    pub(crate) fn poll_write(
        &self,
        stream: &TcpStream,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Option<Poll<io::Result<usize>>> {
        use rustix::net::SendFlags;

        let found = self.find(bufs)?;
        if found.before > 0 {
            // The head: held back by the kernel until the file's first bytes join it.
            let head = &bufs[..found.before];
            return Some(poll_send(stream, cx, || {
                rustix::net::sendmsg(
                    stream,
                    head,
                    &mut Default::default(),
                    SendFlags::MORE | SendFlags::NOSIGNAL,
                )
            }));
        }
        let mut offset = found.offset as u64;
        match poll_send(stream, cx, || {
            rustix::fs::sendfile(stream, &*found.file, Some(&mut offset), found.len)
        }) {
            Poll::Pending => Some(Poll::Pending),
            Poll::Ready(Ok(sent)) if sent > 0 => {
                #[cfg(test)]
                self.sent_from_file
                    .fetch_add(sent, std::sync::atomic::Ordering::Relaxed);
                if found.offset + sent == found.file_len {
                    // The whole file is sent: let it close.
                    self.clear();
                }
                Some(Poll::Ready(Ok(sent)))
            }
            // The file ends early, or cannot be sent from: the rest goes from memory.
            Poll::Ready(_) => {
                self.clear();
                None
            }
        }
    }

    /// Without `sendfile`, every write is the usual one.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn poll_write(
        &self,
        _stream: &TcpStream,
        _cx: &mut Context<'_>,
        _bufs: &[io::IoSlice<'_>],
    ) -> Option<Poll<io::Result<usize>>> {
        None
    }
}

/// Runs `send` on `stream` once it can take bytes, until it does not ask to wait.
#[cfg(target_os = "linux")]
fn poll_send(
    stream: &TcpStream,
    cx: &mut Context<'_>,
    mut send: impl FnMut() -> rustix::io::Result<usize>,
) -> Poll<io::Result<usize>> {
    loop {
        match stream.poll_write_ready(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Ready(Ok(())) => {}
        }
        match stream.try_io(tokio::io::Interest::WRITABLE, || {
            send().map_err(io::Error::from)
        }) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            other => return Poll::Ready(other),
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::io::Write;
    use std::pin::Pin;
    use std::sync::atomic::Ordering;

    use bytes::Bytes;
    use tokio::io::{AsyncReadExt, AsyncWrite};
    use tokio::net::TcpListener;

    use super::*;

    const HEAD: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 307200\r\n\r\n";

    /// 300 KiB that no short period repeats in.
    fn contents() -> Bytes {
        let mut state = 0x9e37_79b9_u32;
        (0..300 * 1024)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state as u8
            })
            .collect::<Vec<u8>>()
            .into()
    }

    /// A slot holding `bytes` as the bytes of a file that holds `in_file` (the file is
    /// removed when the first value is dropped).
    fn slot(bytes: &Bytes, in_file: &[u8]) -> (tempfile::NamedTempFile, SendSlot) {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(in_file).unwrap();
        file.flush().unwrap();
        let slot = SendSlot::default();
        slot.set(SameFile {
            bytes: bytes.clone(),
            file: Arc::new(std::fs::File::open(file.path()).unwrap()),
        });
        (file, slot)
    }

    /// A connection on loopback: the sending end (with a small send buffer, so that writes
    /// are partial) and the receiving end.
    async fn connection() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let receiver = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (sender, _) = listener.accept().await.unwrap();
        rustix::net::sockopt::set_socket_send_buffer_size(&sender, 16 * 1024).unwrap();
        (sender, receiver)
    }

    /// Sends `HEAD` then `body` as hyper does (all that is left, in one vectored write, until
    /// everything is sent), through `slot` when it takes the buffers, and returns what the
    /// other end received.
    async fn send(slot: &SendSlot, body: &[u8]) -> Vec<u8> {
        let (mut sender, mut receiver) = connection().await;
        let expected = HEAD.len() + body.len();
        let reader = tokio::spawn(async move {
            let mut received = vec![0; expected];
            receiver.read_exact(&mut received).await.unwrap();
            received
        });
        let (mut head_sent, mut body_sent) = (0, 0);
        while head_sent < HEAD.len() || body_sent < body.len() {
            let bufs: Vec<io::IoSlice<'_>> = [&HEAD[head_sent..], &body[body_sent..]]
                .into_iter()
                .filter(|b| !b.is_empty())
                .map(io::IoSlice::new)
                .collect();
            let sent = std::future::poll_fn(|cx| match slot.poll_write(&sender, cx, &bufs) {
                Some(polled) => polled,
                None => Pin::new(&mut sender).poll_write_vectored(cx, &bufs),
            })
            .await
            .unwrap();
            assert!(sent > 0);
            let of_head = sent.min(HEAD.len() - head_sent);
            head_sent += of_head;
            body_sent += sent - of_head;
        }
        reader.await.unwrap()
    }

    fn expected(body: &[u8]) -> Vec<u8> {
        [HEAD, body].concat()
    }

    #[tokio::test]
    async fn an_answer_sent_from_its_file_is_the_answer_byte_for_byte() {
        let bytes = contents();
        let (_file, slot) = slot(&bytes, &bytes);
        assert!(send(&slot, &bytes).await == expected(&bytes));
        assert_eq!(slot.sent_from_file.load(Ordering::Relaxed), bytes.len());
        assert!(slot.lock().is_none(), "the file is let go once sent");
    }

    #[tokio::test]
    async fn a_file_shorter_than_its_bytes_has_the_rest_sent_from_memory() {
        let bytes = contents();
        let (_file, slot) = slot(&bytes, &bytes[..100 * 1024]);
        assert!(send(&slot, &bytes).await == expected(&bytes));
        assert_eq!(slot.sent_from_file.load(Ordering::Relaxed), 100 * 1024);
    }

    #[tokio::test]
    async fn bytes_that_are_not_the_files_are_written_as_they_are() {
        let bytes = contents();
        let (_file, slot) = slot(&bytes, &bytes);
        // The same contents in another buffer: not the answer's body, not sent from the file.
        let copy = bytes.to_vec();
        assert!(send(&slot, &copy).await == expected(&copy));
        assert_eq!(slot.sent_from_file.load(Ordering::Relaxed), 0);
    }
}
