//! A test's temporary folder: removed when the test ends, kept for a look when it failed.

use std::ffi::OsStr;
use std::io::ErrorKind;
use std::path::Path;
use std::time::Duration;

/// A new empty folder `<temp>/<prefix>XXXXXX` (e.g. `arbiter-server-test-` and six random
/// characters). Dropping it removes the folder and all in it (trying again for up to 2 s while
/// something still writes into it), unless the thread is panicking (a failed test): then the
/// folder stays and its path is printed to stderr.
///
/// Drop it only after whatever writes into it (a child server, a store) is stopped: a local
/// declared after it is dropped before it, and so is a field of a struct declared above it.
pub struct TestDir(tempfile::TempDir);

impl TestDir {
    pub fn new(prefix: &str) -> TestDir {
        match tempfile::Builder::new().prefix(prefix).tempdir() {
            Ok(dir) => TestDir(dir),
            Err(e) => panic!("cannot make a temporary folder {prefix}…: {e}"),
        }
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

impl std::ops::Deref for TestDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<Path> for TestDir {
    fn as_ref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<OsStr> for TestDir {
    fn as_ref(&self) -> &OsStr {
        self.path().as_os_str()
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        // Removed here rather than by tempfile (which gives up at the first error): a server's
        // tasks may still be writing a record into the folder as it goes, so that a directory
        // is not empty when its turn comes; a moment later it is.
        self.0.disable_cleanup(true);
        if std::thread::panicking() {
            eprintln!("kept {} for the failed test", self.path().display());
            return;
        }
        let mut tries = 0;
        while let Err(e) = std::fs::remove_dir_all(self.path()) {
            tries += 1;
            if e.kind() == ErrorKind::NotFound || tries == 40 {
                if e.kind() != ErrorKind::NotFound {
                    eprintln!("cannot remove {}: {e}", self.path().display());
                }
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::TestDir;

    #[test]
    fn the_folder_lives_as_long_as_its_guard() {
        let dir = TestDir::new("arbiter-guard-");
        let path = dir.to_path_buf();
        std::fs::create_dir_all(dir.join("records")).unwrap();
        std::fs::write(dir.join("records/latest.txt"), "A2-A3").unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(name.starts_with("arbiter-guard-"), "{name}");
        assert!(path.join("records/latest.txt").is_file());
        drop(dir);
        assert!(!path.exists(), "{} is left behind", path.display());
    }

    #[test]
    fn a_failed_test_keeps_its_folder() {
        let (sender, receiver) = std::sync::mpsc::channel();
        let failed = std::thread::spawn(move || {
            let dir = TestDir::new("arbiter-guard-failed-");
            sender.send(dir.to_path_buf()).unwrap();
            panic!("the test fails");
        })
        .join();
        assert!(failed.is_err());
        let path = receiver.recv().unwrap();
        let kept = path.is_dir();
        let _ = std::fs::remove_dir_all(&path);
        assert!(kept, "{} was removed after a failure", path.display());
    }

    #[test]
    fn a_folder_still_written_to_goes_all_the_same() {
        let dir = TestDir::new("arbiter-guard-busy-");
        let (path, records) = (dir.to_path_buf(), dir.join("records"));
        std::fs::create_dir(&records).unwrap();
        // A server's last records, one a millisecond for 300 ms (into nothing once the folder is
        // gone).
        let until = Instant::now() + Duration::from_millis(300);
        let writer = std::thread::spawn(move || {
            for n in 0.. {
                if Instant::now() > until {
                    break;
                }
                let _ = std::fs::write(records.join(format!("{n:06}.txt")), "A2-A3");
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        std::thread::sleep(Duration::from_millis(50));
        drop(dir);
        assert!(!path.exists(), "{} is left behind", path.display());
        writer.join().unwrap();
        assert!(!path.exists(), "{} came back", path.display());
    }
}
