//! The network message parser and the line framing never panic, and a parsed message
//! serialises to a line that parses back to it.
#![no_main]

use arbiter_server::protocol::{LineBuffer, Message};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut lines = LineBuffer::default();
    for chunk in data.chunks(7) {
        lines.push(chunk);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(m) = Message::parse(text) {
            let again = Message::parse(&m.to_line()).expect("a serialised message parses");
            assert_eq!(again, m);
        }
    }
});
