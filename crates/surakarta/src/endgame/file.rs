//! Table files: one per material, `surakarta6-{mover}v{other}.tbl`, checked whole when read.
//!
//! Layout, little-endian: the magic `ARBTB1\n\0`; size, mover, other, limit, id width (bytes,
//! 1, 2 or 4); the position count (u64) and the sequence count (u32); the sequences, 10 bytes
//! each (40 two-bit values); the ids; an FNV-1a hash of everything before it.

use std::path::{Path, PathBuf};

use super::table::{Ids, Table};
use super::{materials, Tables, LAYERS, LIMIT, MAX_PIECES};

const MAGIC: &[u8; 8] = b"ARBTB1\n\0";
const HEADER: usize = 8 + 5 + 8 + 4;
const SEQUENCE_BYTES: usize = 2 * LAYERS / 8;

/// A table file that cannot be written or read; names the file.
#[derive(Debug, thiserror::Error)]
#[error("endgame table {}: {problem}", file.display())]
pub struct TableError {
    pub file: PathBuf,
    pub problem: String,
}

fn error(file: &Path, problem: impl Into<String>) -> TableError {
    TableError {
        file: file.to_path_buf(),
        problem: problem.into(),
    }
}

/// The file name of a material's table.
pub fn file_name(mover: usize, other: usize) -> String {
    format!("surakarta6-{mover}v{other}.tbl")
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A table as file bytes.
fn encode(table: &Table) -> Vec<u8> {
    let width = table.ids.width() as u8;
    let mut out = Vec::with_capacity(HEADER + table.ids.len() * width as usize + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[6, table.mover as u8, table.other as u8, LIMIT as u8, width]);
    out.extend_from_slice(&(table.ids.len() as u64).to_le_bytes());
    out.extend_from_slice(&(table.patterns.len() as u32).to_le_bytes());
    for p in &table.patterns {
        out.extend_from_slice(&p.to_le_bytes()[..SEQUENCE_BYTES]);
    }
    for i in 0..table.ids.len() {
        out.extend_from_slice(&(table.ids.get(i) as u32).to_le_bytes()[..width as usize]);
    }
    out.extend_from_slice(&fnv(&out).to_le_bytes());
    out
}

/// Reads a table's bytes, checking each field against what the material must hold.
fn decode(file: &Path, bytes: &[u8], mover: usize, other: usize) -> Result<Table, TableError> {
    if bytes.len() < HEADER + 8 || &bytes[..8] != MAGIC {
        return Err(error(file, "not an arbiter endgame table (bad magic)"));
    }
    let (body, hash) = bytes.split_at(bytes.len() - 8);
    if fnv(body).to_le_bytes() != hash {
        return Err(error(file, "corrupt: the checksum does not match"));
    }
    let (width, sequences) = check_header(file, body, mover, other)?;
    let ids_at = HEADER + sequences * SEQUENCE_BYTES;
    let patterns: Vec<u128> = body[HEADER..ids_at]
        .chunks_exact(SEQUENCE_BYTES)
        .map(|c| {
            let mut b = [0u8; 16];
            b[..SEQUENCE_BYTES].copy_from_slice(c);
            u128::from_le_bytes(b)
        })
        .collect();
    let numbers: Vec<u32> = body[ids_at..]
        .chunks_exact(width)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..width].copy_from_slice(c);
            u32::from_le_bytes(b)
        })
        .collect();
    if numbers.iter().any(|&n| n as usize >= sequences) {
        return Err(error(file, "corrupt: a position names no sequence"));
    }
    let table = Table {
        mover,
        other,
        ids: Ids::new(numbers, sequences),
        patterns,
    };
    if !table.patterns_valid() {
        return Err(error(file, "corrupt: a value out of range"));
    }
    Ok(table)
}

/// Checks the header of `body` (the file without its checksum) against the material; gives
/// the id width and the number of sequences, whose lengths then fit `body` exactly.
fn check_header(
    file: &Path,
    body: &[u8],
    mover: usize,
    other: usize,
) -> Result<(usize, usize), TableError> {
    let head = &body[8..13];
    if head[..4] != [6, mover as u8, other as u8, LIMIT as u8] {
        let (n, m, o, l) = (head[0], head[1], head[2], head[3]);
        return Err(error(
            file,
            format!(
                "holds size {n} {m}v{o} limit {l}, expected size 6 {mover}v{other} limit {LIMIT}"
            ),
        ));
    }
    let width = head[4] as usize;
    let count = u64::from_le_bytes(body[13..21].try_into().expect("8 bytes"));
    let sequences = u32::from_le_bytes(body[21..25].try_into().expect("4 bytes")) as usize;
    let expected = Table::positions(mover, other);
    let length = (HEADER + sequences * SEQUENCE_BYTES).saturating_add(expected * width);
    if !matches!(width, 1 | 2 | 4)
        || width < Ids::width_for(sequences)
        || count != expected as u64
        || length != body.len()
    {
        return Err(error(
            file,
            format!("wrong length or counts (expected {expected} positions)"),
        ));
    }
    Ok((width, sequences))
}

impl Tables {
    /// Writes every table into `dir` (made if missing); returns the bytes written.
    pub fn save(&self, dir: &Path) -> Result<u64, TableError> {
        self.save_except(dir, &[])
    }

    /// Writes the tables whose materials `(mover, other)` are not in `kept` (files already
    /// there and unchanged); returns the bytes written.
    pub fn save_except(&self, dir: &Path, kept: &[(usize, usize)]) -> Result<u64, TableError> {
        std::fs::create_dir_all(dir).map_err(|e| error(dir, format!("cannot create: {e}")))?;
        let mut total = 0;
        for table in self.iter() {
            if kept.contains(&(table.mover, table.other)) {
                continue;
            }
            let path = dir.join(file_name(table.mover, table.other));
            let bytes = encode(table);
            std::fs::write(&path, &bytes)
                .map_err(|e| error(&path, format!("cannot write: {e}")))?;
            total += bytes.len() as u64;
        }
        Ok(total)
    }

    /// Reads every table file in `dir` (each is complete on its own, so any subset answers
    /// exactly for what it covers). A directory without even the 1-against-1 table is an error
    /// that says how to build one; a present but unreadable file is an error naming it.
    pub fn load(dir: &Path) -> Result<Tables, TableError> {
        let tables = Tables::read_present(dir)?;
        if tables.table(1, 1).is_none() {
            let path = dir.join(file_name(1, 1));
            return Err(error(
                &path,
                "missing (build the tables with `arbiter tables surakarta --out DIR`)",
            ));
        }
        Ok(tables)
    }

    /// Reads the table files `dir` holds, none when it does not exist.
    pub fn read_present(dir: &Path) -> Result<Tables, TableError> {
        let mut tables = Tables::default();
        for (m, o) in materials(MAX_PIECES) {
            let path = dir.join(file_name(m, o));
            if !path.is_file() {
                continue;
            }
            let bytes =
                std::fs::read(&path).map_err(|e| error(&path, format!("cannot read: {e}")))?;
            tables.insert(decode(&path, &bytes, m, o)?);
        }
        Ok(tables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_survives_the_round_trip_and_corruption_is_named() {
        let tables = Tables::build(2, &mut |_| {});
        let t = tables.table(2, 1).unwrap();
        let bytes = encode(t);
        let path = Path::new("x.tbl");
        assert_eq!(&decode(path, &bytes, 2, 1).unwrap(), t);
        let mut bad = bytes.clone();
        bad[HEADER + 3] ^= 1;
        let e = decode(path, &bad, 2, 1).unwrap_err();
        assert!(
            e.to_string().contains("x.tbl") && e.to_string().contains("checksum"),
            "{e}"
        );
        assert!(decode(path, &bytes, 1, 2).is_err());
        assert!(decode(path, &bytes[..20], 2, 1).is_err());
    }
}
