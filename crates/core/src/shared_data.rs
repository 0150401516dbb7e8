//! Finding the conformance data in `../shared/data` for golden tests.
//!
//! The data comes from outside the project and is not copied into it. Tests call [`locate`]: when
//! the folder is missing they print that they are skipped, unless `ARBITER_REQUIRE_SHARED_DATA`
//! is set (CI sets it), in which case a missing folder fails the test.

use std::path::{Path, PathBuf};

/// The environment variable that turns a skipped conformance test into a failure.
pub const REQUIRE_VAR: &str = "ARBITER_REQUIRE_SHARED_DATA";

/// `shared/data/<sub>` beside the workspace, found from a crate's manifest directory.
///
/// Looks in `ARBITER_SHARED_DATA` first, then walks up from `manifest_dir` to a folder that has a
/// sibling `shared/data`.
pub fn locate(manifest_dir: &str, sub: &str, test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("ARBITER_SHARED_DATA")
        .map(PathBuf::from)
        .or_else(|| {
            Path::new(manifest_dir)
                .ancestors()
                .map(|dir| dir.join("shared").join("data"))
                .find(|candidate| candidate.is_dir())
        })
        .map(|data| data.join(sub))
        .filter(|dir| dir.is_dir());
    if found.is_none() {
        if std::env::var_os(REQUIRE_VAR).is_some() {
            panic!("{test}: ../shared/data/{sub} is missing and {REQUIRE_VAR} is set");
        }
        eprintln!("SKIPPED {test}: ../shared/data/{sub} not found (conformance data is not in this checkout)");
    }
    found
}

/// The `*.in` files of a folder with their expected `*.ans`, sorted by name.
pub fn cases(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "in"))
        .map(|p| {
            let ans = p.with_extension("ans");
            (p, ans)
        })
        .collect();
    out.sort();
    out
}
