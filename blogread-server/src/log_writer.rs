//! The log's output: what the log's thread writes to stderr, gathered into batches.
//!
//! The log's thread takes lines off its queue into a buffer and flushes the buffer whenever
//! the queue is empty. Under load that was one `write` a line or two (and a wake-up of
//! whatever reads the other end of the pipe), which cost a server answering small requests
//! about a fifth of its time. [`Batched`] makes a flush wait until
//! [`LOG_FLUSH_INTERVAL`] has passed since the last one, so that lines arriving meanwhile join
//! the same write (as nginx's `access_log ... flush=` does): a busy server writes its log a
//! few dozen times a second, whatever its request rate, and a line still reaches stderr within
//! two intervals of being logged.

use std::io::{self, BufWriter, Write};
use std::time::{Duration, Instant};

/// The shortest time between two writes of the log to stderr (but for a full buffer).
pub const LOG_FLUSH_INTERVAL: Duration = Duration::from_millis(25);

/// A buffered writer whose flush waits out the rest of an interval since the last flush.
pub struct Batched<W: Write> {
    inner: BufWriter<W>,
    interval: Duration,
    last_flush: Option<Instant>,
}

impl<W: Write> Batched<W> {
    /// Writes to `inner` through a buffer of `capacity` bytes (written out when full), flushing
    /// at most once every `interval`.
    pub fn new(inner: W, capacity: usize, interval: Duration) -> Self {
        Self {
            inner: BufWriter::with_capacity(capacity, inner),
            interval,
            last_flush: None,
        }
    }

    /// The writer underneath.
    pub fn get_ref(&self) -> &W {
        self.inner.get_ref()
    }
}

impl<W: Write> Write for Batched<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    /// Waits until the interval since the last flush has passed (lines queued meanwhile are
    /// written by the next one), then writes the buffer out.
    fn flush(&mut self) -> io::Result<()> {
        if let Some(last) = self.last_flush {
            let due = last + self.interval;
            let now = Instant::now();
            if now < due {
                std::thread::sleep(due - now);
            }
        }
        let flushed = self.inner.flush();
        self.last_flush = Some(Instant::now());
        flushed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_stay_in_the_buffer_until_a_flush() {
        let mut writer = Batched::new(Vec::new(), 1024, Duration::ZERO);
        writer.write_all(b"one line\n").unwrap();
        assert!(writer.get_ref().is_empty());
        writer.flush().unwrap();
        assert_eq!(writer.get_ref().as_slice(), b"one line\n");
    }

    #[test]
    fn a_full_buffer_is_written_without_waiting_for_a_flush() {
        let mut writer = Batched::new(Vec::new(), 16, Duration::from_secs(3600));
        writer.write_all(&[b'x'; 40]).unwrap();
        assert!(writer.get_ref().len() >= 16, "{}", writer.get_ref().len());
    }

    #[test]
    fn a_flush_comes_no_sooner_than_the_interval_after_the_last_one() {
        let interval = Duration::from_millis(30);
        let mut writer = Batched::new(Vec::new(), 1024, interval);
        writer.write_all(b"a\n").unwrap();
        writer.flush().unwrap();
        let first = Instant::now();
        writer.write_all(b"b\n").unwrap();
        writer.flush().unwrap();
        assert!(first.elapsed() >= interval.saturating_sub(Duration::from_millis(1)));
        assert_eq!(writer.get_ref().as_slice(), b"a\nb\n");
    }
}
