//! The documentation a clone ships: every relative link in the README, CONTRIBUTING and docs/
//! points at a file of this repository (none into `../shared`, which a clone does not have).

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn markdown_files() -> Vec<PathBuf> {
    let root = workspace();
    let mut files = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut pending = vec![root.join("docs")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files
}

/// The targets of `[text](target)` links in `text`.
fn link_targets(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            rest.find(')').map(|end| rest[..end].to_string())
        })
        .collect()
}

#[test]
fn every_relative_link_resolves_inside_the_repository() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().unwrap();
            let resolved = file.parent().unwrap().join(path);
            if !resolved.exists() || target.contains("../shared") {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
        assert!(
            !text.contains("../shared/rules"),
            "{} cites ../shared/rules",
            file.display()
        );
    }
    assert!(broken.is_empty(), "broken links: {broken:#?}");
}

#[test]
fn the_repository_has_its_licence_and_guides() {
    let root = workspace();
    for file in [
        "LICENSE",
        "CONTRIBUTING.md",
        "docs/architecture.md",
        "docs/rules/duck.md",
        "docs/rules/surakarta.md",
        "docs/rules/rc02.md",
    ] {
        assert!(root.join(file).is_file(), "{file}");
    }
    assert!(std::fs::read_to_string(root.join("LICENSE"))
        .unwrap()
        .starts_with("MIT License"));
}
