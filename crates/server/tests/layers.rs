//! The server's layers (docs/architecture.md) as its code has them: arrows point down only, so
//! a folder never `use`s a layer above it. Comments may name any layer; code may not.

use std::path::{Path, PathBuf};

/// Each folder of `src/` and the layers its code must never reach.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "storage",
        &["rooms", "cluster", "transport", "api", "server"],
    ),
    ("rooms", &["cluster", "transport", "api", "server"]),
    ("cluster", &["transport", "api", "server"]),
    ("api", &["transport", "cluster", "server"]),
    ("transport", &["cluster", "server"]),
];

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// The layers a line of code names (`crate::rooms::…`), comments left out.
fn layers_named(line: &str) -> Vec<&str> {
    let code = line.split("//").next().unwrap_or_default();
    code.match_indices("crate::")
        .map(|(at, _)| {
            let rest = &code[at + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

#[test]
fn no_layer_uses_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for (folder, forbidden) in FORBIDDEN {
        for file in rust_files(&src.join(folder)) {
            let text = std::fs::read_to_string(&file).expect("readable source");
            for (n, line) in text.lines().enumerate() {
                for layer in layers_named(line) {
                    if forbidden.contains(&layer) {
                        let shown = file.strip_prefix(&src).unwrap_or(&file).display();
                        wrong.push(format!("{shown}:{}: uses crate::{layer}", n + 1));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "layers used from below: {wrong:#?}");
}

#[test]
fn the_check_sees_a_use_and_skips_a_comment() {
    assert_eq!(
        layers_named("use crate::cluster::wire; // crate::api"),
        ["cluster"]
    );
    assert!(layers_named("/// See [`crate::cluster`].").is_empty());
}
