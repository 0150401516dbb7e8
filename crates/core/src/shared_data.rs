//! Finding the conformance data for golden tests: the repository's own copy in `tests/data`.
//!
//! The data (contest cases, a course's reference answers) comes from outside the project; it is
//! copied into `tests/data` so that every clone runs every conformance test, and a missing
//! folder is a failure, never a skip. `ARBITER_SHARED_DATA` points the tests at another copy;
//! [`differences`] tells whether the upstream copy in `../shared/data` has changed since.

use std::path::{Path, PathBuf};

/// `tests/data/<sub>` of the workspace, found from a crate's manifest directory (or
/// `$ARBITER_SHARED_DATA/<sub>`). Panics, naming `test`, when it is not there.
pub fn locate(manifest_dir: &str, sub: &str, test: &str) -> PathBuf {
    let data = std::env::var_os("ARBITER_SHARED_DATA")
        .map(PathBuf::from)
        .or_else(|| repository_data(manifest_dir, sub));
    match data.map(|d| d.join(sub)).filter(|dir| dir.is_dir()) {
        Some(dir) => dir,
        None => panic!(
            "{test}: the conformance data tests/data/{sub} is missing from this checkout \
             (it is part of the repository; restore it with `git checkout -- tests/data`)"
        ),
    }
}

/// The workspace's `tests/data`: the nearest one, among `manifest_dir` and its ancestors, that
/// holds `sub` (the caller's folder, e.g. `duck/official`: this module names no game).
pub fn repository_data(manifest_dir: &str, sub: &str) -> Option<PathBuf> {
    Path::new(manifest_dir)
        .ancestors()
        .map(|dir| dir.join("tests").join("data"))
        .find(|candidate| candidate.join(sub).is_dir())
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

/// Every file under `upstream` that is missing from `copy` or differs from it, as relative
/// paths: what to copy again when the data beside the project has been updated.
pub fn differences(upstream: &Path, copy: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for file in files_under(upstream) {
        let relative = file.strip_prefix(upstream).expect("listed under upstream");
        let ours = std::fs::read(copy.join(relative)).ok();
        if ours.as_deref() != std::fs::read(&file).ok().as_deref() {
            out.push(relative.display().to_string());
        }
    }
    out.sort();
    out
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                pending.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When `../shared/data` is beside the project, the repository's copy must equal it: a
    /// newer upstream fails here with the files to copy, instead of being silently ignored.
    #[test]
    fn the_copy_is_as_new_as_the_data_beside_the_project() {
        let data = repository_data(env!("CARGO_MANIFEST_DIR"), "").expect("tests/data");
        let workspace = data.parent().and_then(Path::parent).expect("workspace");
        let Some(upstream) = workspace
            .parent()
            .map(|p| p.join("shared").join("data"))
            .filter(|p| p.is_dir())
        else {
            return;
        };
        let changed = differences(&upstream, &data);
        assert!(
            changed.is_empty(),
            "../shared/data has changed; copy these into tests/data: {changed:?}"
        );
    }

    #[test]
    fn differences_name_a_changed_and_a_missing_file() {
        let root = std::env::temp_dir().join(format!("arbiter-data-{}", std::process::id()));
        let (up, copy) = (root.join("up"), root.join("copy"));
        std::fs::create_dir_all(up.join("a")).unwrap();
        std::fs::create_dir_all(copy.join("a")).unwrap();
        std::fs::write(up.join("a/same.in"), "1").unwrap();
        std::fs::write(copy.join("a/same.in"), "1").unwrap();
        std::fs::write(up.join("a/changed.ans"), "new").unwrap();
        std::fs::write(copy.join("a/changed.ans"), "old").unwrap();
        std::fs::write(up.join("a/added.in"), "x").unwrap();
        let found = differences(&up, &copy);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(found, ["a/added.in", "a/changed.ans"]);
    }
}
