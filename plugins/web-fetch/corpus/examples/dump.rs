#![allow(clippy::print_stdout, clippy::unwrap_used, missing_docs)]
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let ct = std::env::args().nth(2).unwrap_or_else(|| "text/html; charset=utf-8".into());
    let (title, md) = web_fetch_corpus::read(&std::fs::read(path).unwrap(), &ct).unwrap();
    println!("Title: {title:?}\n{md}");
}
