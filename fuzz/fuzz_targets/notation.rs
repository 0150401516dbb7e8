//! Position files, records, FEN strings and moves: parsers never panic; what parses writes back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(state) = arbiter_surakarta::Position::from_position_file(text) {
        let again = arbiter_surakarta::Position::from_position_file(&state.to_position_file()).unwrap();
        assert_eq!(again, state);
    }
    for n in [6, 8, 12] {
        if let Ok(record) = arbiter_surakarta::Record::parse(text, n) {
            assert_eq!(arbiter_surakarta::Record::parse(&record.to_string(), n).unwrap(), record);
        }
    }
    if let Ok(pos) = arbiter_duck::Position::from_fen(text) {
        assert_eq!(arbiter_duck::Position::from_fen(&pos.to_fen()).unwrap().to_fen(), pos.to_fen());
    }
    let start = arbiter_duck::Position::initial();
    let _ = start.parse_move(text);
    let rc = arbiter_rc02::Position::initial(6).unwrap();
    let _ = rc.parse_move(text);
    let _ = arbiter_rc02::Position::from_picture(text, arbiter_core::Side::First);
});
