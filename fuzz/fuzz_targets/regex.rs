//! Any pattern, flags and input: compiling gives a regex or a SyntaxError, and matching
//! gives a match, no match, or stops when the step budget runs out; never a panic or a
//! hang. Both input representations (one-byte and UTF-16) are searched.

#![no_main]

use arbitrary::Arbitrary;
use kiln_regex::{Flags, Input, MatchError, Regex};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Case {
    flags: u8,
    pattern: Vec<u16>,
    input: Vec<u16>,
    start: u8,
    sticky: bool,
}

fuzz_target!(|case: Case| {
    let f = case.flags;
    let flags = Flags {
        ignore_case: f & 1 != 0,
        multiline: f & 2 != 0,
        dot_all: f & 4 != 0,
        unicode: f & 8 != 0 && f & 16 == 0,
        unicode_sets: f & 16 != 0,
    };
    let Ok(re) = Regex::new(&case.pattern, flags) else {
        return;
    };
    let start = case.start as usize;
    let bytes: Vec<u8> = case.input.iter().map(|&u| u as u8).collect();
    for input in [Input::Utf16(&case.input), Input::Latin1(&bytes)] {
        let mut budget: u64 = 200_000;
        let result = re.find_at(input, start, case.sticky, &mut |steps| {
            budget = budget.saturating_sub(steps);
            budget > 0
        });
        match result {
            Ok(Some(m)) => {
                // every reported span lies inside the input, in order
                for i in 0..m.len() {
                    if let Some((s, e)) = m.get(i) {
                        assert!(s <= e && e <= input.len());
                    }
                }
                assert!(m.start() >= start.min(input.len()));
            }
            Ok(None) | Err(MatchError::Interrupted(_)) | Err(MatchError::BacktrackLimit) => {}
        }
    }
});
