//! `arbiter serve --config FILE`: the settings of a TOML file, each key the name of a flag
//! (`max_connections = 5000` is `--max-connections 5000`; `trusted_proxy = ["10.0.0.1"]` repeats
//! a flag; `true` sets a switch). They go before the command line's own arguments, so a flag
//! given on the command line wins over the file.

use std::ffi::OsString;
use std::path::Path;

use anyhow::{bail, Context};

/// The arguments with the file of `serve --config FILE` spelled out in its place.
pub fn expand(args: Vec<OsString>) -> anyhow::Result<Vec<OsString>> {
    if args.get(1).and_then(|a| a.to_str()) != Some("serve") {
        return Ok(args);
    }
    let Some((at, path, taken)) = find_config(&args) else {
        return Ok(args);
    };
    let from_file = read(Path::new(&path))?;
    let mut expanded: Vec<OsString> = args[..2].to_vec();
    expanded.extend(from_file.into_iter().map(OsString::from));
    expanded.extend(args[2..at].iter().cloned());
    expanded.extend(args[at + taken..].iter().cloned());
    Ok(expanded)
}

/// Where `--config FILE` (or `--config=FILE`) is: its index, the file, and how many arguments
/// it takes.
fn find_config(args: &[OsString]) -> Option<(usize, String, usize)> {
    args.iter().enumerate().skip(2).find_map(|(i, a)| {
        let a = a.to_str()?;
        if a == "--config" {
            let path = args.get(i + 1)?.to_str()?.to_string();
            Some((i, path, 2))
        } else {
            a.strip_prefix("--config=").map(|p| (i, p.to_string(), 1))
        }
    })
}

/// The file's settings as flags.
fn read(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--config: cannot read {}", path.display()))?;
    let table: toml::Table = text
        .parse()
        .with_context(|| format!("--config: {} is not TOML", path.display()))?;
    let mut flags = Vec::new();
    for (key, value) in table {
        let flag = format!("--{}", key.replace('_', "-"));
        if flag == "--config" {
            bail!("--config: {} names another config file", path.display());
        }
        push_flag(&mut flags, &flag, &value)
            .with_context(|| format!("--config: {} at `{key}`", path.display()))?;
    }
    Ok(flags)
}

fn push_flag(flags: &mut Vec<String>, flag: &str, value: &toml::Value) -> anyhow::Result<()> {
    match value {
        toml::Value::Boolean(true) => flags.push(flag.to_string()),
        toml::Value::Boolean(false) => {}
        toml::Value::Array(items) => {
            for item in items {
                push_flag(flags, flag, item)?;
            }
        }
        toml::Value::String(s) => flags.extend([flag.to_string(), s.clone()]),
        toml::Value::Integer(n) => flags.extend([flag.to_string(), n.to_string()]),
        toml::Value::Float(x) => flags.extend([flag.to_string(), x.to_string()]),
        other => bail!("a {} is not a flag's value", other.type_str()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_pgtest::TestDir;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_files_settings_come_before_the_command_lines_own() {
        let dir = TestDir::new("arbiter-config-");
        let file = dir.join("node.toml");
        let text = "cluster = \"nats://127.0.0.1:4222\"\nmax_connections = 5000\n\
                    trusted_proxy = [\"10.0.0.1\", \"10.0.0.2\"]\nverbose = false\n";
        std::fs::write(&file, text).unwrap();
        let given = args(&[
            "arbiter",
            "serve",
            "--config",
            file.to_str().unwrap(),
            "--node",
            "b",
        ]);
        let expanded: Vec<String> = expand(given)
            .unwrap()
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert_eq!(
            expanded,
            [
                "arbiter",
                "serve",
                "--cluster",
                "nats://127.0.0.1:4222",
                "--max-connections",
                "5000",
                "--trusted-proxy",
                "10.0.0.1",
                "--trusted-proxy",
                "10.0.0.2",
                "--node",
                "b"
            ]
        );
    }

    #[test]
    fn a_file_that_is_not_toml_is_named_in_the_error() {
        let dir = TestDir::new("arbiter-bad-");
        let file = dir.join("bad.toml");
        std::fs::write(&file, "max_connections = = 3").unwrap();
        let given = args(&["arbiter", "serve", &format!("--config={}", file.display())]);
        let error = format!("{:#}", expand(given).unwrap_err());
        assert!(error.contains("is not TOML"), "{error}");
        assert!(error.contains(file.to_str().unwrap()), "{error}");
    }
}
