//! The media files contract: the same behaviours checked against every [`MediaFiles`]
//! backend (feature `media`).
//!
//! Each case is an async function taking a fresh, empty backend. A backend's tests invoke
//! [`crate::media_files_contract_tests!`] once with an expression that builds one (and a
//! guard that keeps what it stands on alive: its folder, its server); the macro expands to
//! one `#[tokio::test]` per case, named after the behaviour it checks.

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

use blogread_media::OutputKind;
use bytes::Bytes;

use crate::domain::ProjectId;
use crate::media::{MediaFiles, MediaPath};

/// Two digests, as the pipeline names items.
const SHA_A: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const SHA_B: &str = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";

/// How far ahead of the test's clock a listed time may be: clocks of two machines (the
/// server's and the bucket's) agree only so closely.
const CLOCK_SKEW: Duration = Duration::from_secs(60);

fn master(project: ProjectId, sha: &str, kind: OutputKind) -> MediaPath {
    MediaPath::master(project, sha, kind).expect("a valid master path")
}

fn variant(project: ProjectId, sha: &str, width: u32, kind: OutputKind) -> MediaPath {
    MediaPath::variant(project, sha, width, kind).expect("a valid variant path")
}

/// Bytes unlike any text: every byte value, `len` of them.
fn bytes_of(len: usize, seed: u8) -> Bytes {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect::<Vec<u8>>()
        .into()
}

async fn listed(files: &dyn MediaFiles) -> BTreeSet<String> {
    files
        .list(SystemTime::UNIX_EPOCH)
        .await
        .expect("list")
        .into_iter()
        .map(|f| f.path.to_string())
        .collect()
}

/// A master and a variant written are read back byte for byte.
pub async fn a_file_written_is_read_back_whole(files: &dyn MediaFiles) {
    let project = ProjectId::generate();
    let m = master(project, SHA_A, OutputKind::Jpeg);
    let v = variant(project, SHA_A, 480, OutputKind::Jpeg);
    files
        .put(&m, bytes_of(10_000, 1))
        .await
        .expect("put master");
    files
        .put(&v, bytes_of(3_000, 2))
        .await
        .expect("put variant");
    assert_eq!(files.get(&m).await.unwrap(), Some(bytes_of(10_000, 1)));
    assert_eq!(files.get(&v).await.unwrap(), Some(bytes_of(3_000, 2)));
}

/// Writing a file again with the same bytes (an upload sent twice) succeeds and leaves the
/// same whole file, listed once.
pub async fn writing_a_file_again_with_the_same_bytes_keeps_it_whole(files: &dyn MediaFiles) {
    let project = ProjectId::generate();
    let m = master(project, SHA_A, OutputKind::Png);
    files.put(&m, bytes_of(4_096, 3)).await.expect("first put");
    files.put(&m, bytes_of(4_096, 3)).await.expect("second put");
    assert_eq!(files.get(&m).await.unwrap(), Some(bytes_of(4_096, 3)));
    assert_eq!(listed(files).await, BTreeSet::from([m.to_string()]));
}

/// A file never written is `None`: in a project with no files, and beside files that are
/// there (a variant of a stored master, the other type of a stored master).
pub async fn a_missing_file_is_none(files: &dyn MediaFiles) {
    let project = ProjectId::generate();
    assert_eq!(
        files
            .get(&master(project, SHA_A, OutputKind::Jpeg))
            .await
            .unwrap(),
        None
    );
    files
        .put(&master(project, SHA_A, OutputKind::Jpeg), bytes_of(10, 4))
        .await
        .unwrap();
    for missing in [
        variant(project, SHA_A, 960, OutputKind::Jpeg),
        master(project, SHA_A, OutputKind::Png),
        master(project, SHA_B, OutputKind::Jpeg),
    ] {
        assert_eq!(files.get(&missing).await.unwrap(), None, "{missing}");
    }
}

/// Deleting removes the file; deleting a file that is not there (never written, or deleted
/// already) is a success.
pub async fn deleting_a_file_is_idempotent(files: &dyn MediaFiles) {
    let project = ProjectId::generate();
    let m = master(project, SHA_A, OutputKind::Jpeg);
    let v = variant(project, SHA_A, 1_600, OutputKind::Jpeg);
    files
        .delete(&v)
        .await
        .expect("deleting a file never written");
    files.put(&m, bytes_of(100, 5)).await.unwrap();
    files.put(&v, bytes_of(50, 6)).await.unwrap();
    files.delete(&v).await.expect("delete");
    assert_eq!(files.get(&v).await.unwrap(), None);
    files.delete(&v).await.expect("deleting it again");
    assert_eq!(
        files.get(&m).await.unwrap(),
        Some(bytes_of(100, 5)),
        "the master stays"
    );
}

/// The listing names every master and variant of every project, and no deleted file.
pub async fn the_listing_names_masters_and_variants_of_every_project(files: &dyn MediaFiles) {
    assert_eq!(
        listed(files).await,
        BTreeSet::new(),
        "a fresh store is empty"
    );
    let one = ProjectId::generate();
    let two = ProjectId::generate();
    let mut expected = BTreeSet::new();
    for (project, sha, kind) in [
        (one, SHA_A, OutputKind::Jpeg),
        (one, SHA_B, OutputKind::Png),
        (two, SHA_A, OutputKind::Png),
    ] {
        let m = master(project, sha, kind);
        files.put(&m, bytes_of(64, 7)).await.unwrap();
        expected.insert(m.to_string());
        for width in [480, 960] {
            let v = variant(project, sha, width, kind);
            files.put(&v, bytes_of(32, 8)).await.unwrap();
            expected.insert(v.to_string());
        }
    }
    let gone = variant(one, SHA_B, 960, OutputKind::Png);
    files.delete(&gone).await.unwrap();
    expected.remove(&gone.to_string());
    let gone = master(two, SHA_A, OutputKind::Png);
    files.delete(&gone).await.unwrap();
    expected.remove(&gone.to_string());
    assert_eq!(listed(files).await, expected);
}

/// A listed file's time is when it was written, as well as clocks agree: not before the test
/// began (less a minute) nor after it ended (plus a minute).
pub async fn listed_modified_times_are_when_the_files_were_written(files: &dyn MediaFiles) {
    let before = SystemTime::now();
    let project = ProjectId::generate();
    files
        .put(&master(project, SHA_A, OutputKind::Jpeg), bytes_of(10, 9))
        .await
        .unwrap();
    files
        .put(
            &variant(project, SHA_A, 480, OutputKind::Jpeg),
            bytes_of(10, 9),
        )
        .await
        .unwrap();
    let stored = files.list(SystemTime::UNIX_EPOCH).await.unwrap();
    let after = SystemTime::now();
    assert_eq!(stored.len(), 2);
    for file in stored {
        assert!(
            file.modified >= before - CLOCK_SKEW && file.modified <= after + CLOCK_SKEW,
            "{}: modified {:?}, written between {before:?} and {after:?}",
            file.path,
            file.modified
        );
    }
}

/// A 5 MiB file (a large master) round-trips whole, read whole and read to be served (in
/// parts: the same bytes, the length announced first).
pub async fn a_five_mebibyte_file_round_trips(files: &dyn MediaFiles) {
    use futures_util::TryStreamExt;
    let project = ProjectId::generate();
    let m = master(project, SHA_B, OutputKind::Png);
    let big = bytes_of(5 * 1024 * 1024, 10);
    files.put(&m, big.clone()).await.expect("put 5 MiB");
    let read = files.get(&m).await.unwrap().expect("the file");
    assert_eq!(read.len(), big.len());
    assert!(read == big, "the bytes read differ from those written");
    let served = files.read(&m).await.unwrap().expect("the file, to serve");
    assert_eq!(served.length, big.len() as u64);
    let parts: Vec<Bytes> = served.chunks.try_collect().await.expect("every part");
    assert!(
        parts.concat() == big,
        "the bytes served differ from those written"
    );
    let missing = master(project, SHA_A, OutputKind::Png);
    assert!(files.read(&missing).await.unwrap().is_none());
}

/// The same item in two projects is two files: each project reads its own bytes, and
/// deleting one leaves the other.
pub async fn the_paths_of_two_projects_never_collide(files: &dyn MediaFiles) {
    let one = ProjectId::generate();
    let two = ProjectId::generate();
    for (project, seed) in [(one, 11), (two, 12)] {
        files
            .put(
                &master(project, SHA_A, OutputKind::Jpeg),
                bytes_of(256, seed),
            )
            .await
            .unwrap();
        files
            .put(
                &variant(project, SHA_A, 480, OutputKind::Jpeg),
                bytes_of(128, seed),
            )
            .await
            .unwrap();
    }
    files
        .delete(&master(one, SHA_A, OutputKind::Jpeg))
        .await
        .unwrap();
    assert_eq!(
        files
            .get(&master(one, SHA_A, OutputKind::Jpeg))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        files
            .get(&master(two, SHA_A, OutputKind::Jpeg))
            .await
            .unwrap(),
        Some(bytes_of(256, 12))
    );
    assert_eq!(
        files
            .get(&variant(one, SHA_A, 480, OutputKind::Jpeg))
            .await
            .unwrap(),
        Some(bytes_of(128, 11))
    );
    assert_eq!(
        files
            .get(&variant(two, SHA_A, 480, OutputKind::Jpeg))
            .await
            .unwrap(),
        Some(bytes_of(128, 12))
    );
}

/// Expands to one `#[tokio::test]` per case of the media files contract. `$make` builds a
/// fresh, empty backend and a guard that keeps what it needs alive until the case ends:
/// `(files, guard)`, e.g. `(LocalFolder::open(dir.path())?, dir)`.
#[macro_export]
macro_rules! media_files_contract_tests {
    ($make:expr) => {
        $crate::media_files_contract_tests!(@cases $make;
            a_file_written_is_read_back_whole,
            writing_a_file_again_with_the_same_bytes_keeps_it_whole,
            a_missing_file_is_none,
            deleting_a_file_is_idempotent,
            the_listing_names_masters_and_variants_of_every_project,
            listed_modified_times_are_when_the_files_were_written,
            a_five_mebibyte_file_round_trips,
            the_paths_of_two_projects_never_collide,
        );
    };
    (@cases $make:expr; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let (files, _guard) = $make;
                $crate::testing::media_files_contract::$case(&files).await;
            }
        )*
    };
}
