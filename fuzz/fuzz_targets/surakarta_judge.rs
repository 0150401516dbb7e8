#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = arbiter_surakarta::judge(data, std::io::sink());
});
