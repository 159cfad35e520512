//! Unit tests of `stdio.rs`.

use super::*;

#[test]
fn keeps_output_up_to_the_cap_and_counts_the_rest() {
    let out = CapturedOutput::new(5);
    out.write(b"hello world");
    out.write(b"!");
    assert_eq!(out.contents(), ("hello".to_string(), 7));
    assert_eq!(out.take(), ("hello".to_string(), 7));
    assert_eq!(out.take(), (String::new(), 0), "taking empties the buffer");
    out.write(b"again");
    assert_eq!(out.contents(), ("again".to_string(), 0));
}
