use super::*;

#[test]
fn no_cell_reaches_the_terminal_with_a_hidden_character() {
    let area = Rect::new(0, 0, 8, 1);
    let mut buffer = Buffer::empty(area);
    for (x, symbol) in ["\u{1b}", "\u{202e}", "\u{2066}", "\u{200b}", "\u{9b}", "\t", "a", "界"].iter().enumerate() {
        buffer[(x as u16, 0)].set_symbol(symbol);
    }
    neutralize(&mut buffer);
    let drawn: Vec<&str> = buffer.content.iter().map(|cell| cell.symbol()).collect();
    assert_eq!(drawn, ["␛", "␛", "␛", "␛", "␛", " ", "a", "界"]);
}
