//! Unit tests of the page reading, one group per fix of issue 25; each test fails on the
//! converter before it (which read every page as UTF-8 and wrote a list marker, a table
//! row or a heading wherever its tag came).

use super::charset::{Source, decode};
use super::*;

const BASE: &str = "https://example.com/docs/page.html";

fn md(html: &str) -> String {
    to_markdown(html, &url::Url::parse(BASE).unwrap()).markdown
}

/// The Markdown of a page served as `content_type` with these bytes.
fn read(body: &[u8], content_type: &str) -> String {
    md(&decode(body, content_type, true).text)
}

fn encode(text: &str, label: &str) -> Vec<u8> {
    let encoding = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "{text} is not all in {label}");
    bytes.into_owned()
}

// The charset: a byte order mark, the header, a `<meta>` in the first 1024 bytes, UTF-8.

#[test]
fn a_gbk_page_declared_by_its_meta_is_decoded() {
    let page = encode("<html><head><meta charset=\"gbk\"><title>新闻</title></head><p>中文网页</p>", "gbk");
    let decoded = decode(&page, "text/html", true);
    assert_eq!((decoded.encoding.name(), decoded.source), ("GBK", Source::Meta));
    let converted = to_markdown(&decoded.text, &url::Url::parse(BASE).unwrap());
    assert_eq!(converted.title.as_deref(), Some("新闻"));
    assert_eq!(converted.markdown, "中文网页");
}

#[test]
fn http_equiv_content_type_names_the_charset() {
    let page = encode(
        "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"><p>日本語のページ</p>",
        "shift_jis",
    );
    assert_eq!(read(&page, "text/html"), "日本語のページ");
}

#[test]
fn a_content_charset_without_http_equiv_names_nothing() {
    let page = encode("<meta content=\"text/html; charset=windows-1251\"><p>Привет</p>", "windows-1251");
    let decoded = decode(&page, "text/html", true);
    assert_eq!(decoded.source, Source::Default);
    assert!(decoded.text.contains('\u{fffd}'), "{}", decoded.text);
}

#[test]
fn the_header_charset_comes_before_the_meta() {
    let page = encode("<meta charset=\"utf-8\"><p>Привет, мир</p>", "windows-1251");
    let decoded = decode(&page, "text/html; charset=\"windows-1251\"", true);
    assert_eq!((decoded.encoding.name(), decoded.source), ("windows-1251", Source::Header));
    assert_eq!(md(&decoded.text), "Привет, мир");
}

#[test]
fn a_byte_order_mark_comes_before_the_header() {
    let mut page = vec![0xef, 0xbb, 0xbf];
    page.extend_from_slice("<p>Grüße</p>".as_bytes());
    let decoded = decode(&page, "text/html; charset=iso-8859-1", true);
    assert_eq!((decoded.encoding.name(), decoded.source), ("UTF-8", Source::ByteOrderMark));
    assert_eq!(md(&decoded.text), "Grüße");
    let mut utf16 = vec![0xff, 0xfe];
    utf16.extend("<p>Grüße</p>".encode_utf16().flat_map(u16::to_le_bytes));
    assert_eq!(read(&utf16, "text/html"), "Grüße");
}

#[test]
fn a_meta_in_a_comment_or_past_1024_bytes_is_not_read() {
    let page = encode("<!-- <meta charset=\"koi8-r\"> --><p>Grüße</p>", "utf-8");
    assert_eq!(decode(&page, "", true).source, Source::Default);
    let late = format!("<p>{}</p><meta charset=\"windows-1252\"><p>Grüße</p>", "x".repeat(1100));
    assert_eq!(decode(late.as_bytes(), "", true).source, Source::Default);
    assert!(read(late.as_bytes(), "").ends_with("Grüße"));
}

#[test]
fn a_meta_saying_utf16_is_read_as_utf8_and_plain_text_has_no_meta() {
    let page = "<meta charset=\"utf-16\"><p>é</p>".as_bytes();
    assert_eq!(decode(page, "", true).encoding.name(), "UTF-8");
    let latin = encode("<meta charset=\"latin1\">é", "latin1");
    assert_eq!(decode(&latin, "text/plain", false).source, Source::Default);
    assert_eq!(decode(&latin, "text/html", true).encoding.name(), "windows-1252");
}

// Block content inside list items, headings and table cells.

#[test]
fn a_list_item_that_starts_with_a_block_keeps_its_marker_on_the_text() {
    let out =
        md("<ul><li><p>First</p></li><li><div><span>Second</span></div></li></ul><ol><li><h3>Third</h3></li></ol>");
    assert_eq!(out, "- First\n- Second\n\n1. ### Third");
}

#[test]
fn an_item_without_text_leaves_no_marker() {
    let out = md("<ul><li></li><li><a href=\"/x\"><img src=\"i.png\"></a></li><li> </li><li>kept</li></ul>");
    assert_eq!(out, "- kept");
}

#[test]
fn a_list_items_later_lines_stay_inside_it() {
    let out = md("<ul><li>one<p>more of one</p><ul><li>nested</li></ul></li><li>two</li></ul>");
    assert_eq!(out, "- one\n  more of one\n  - nested\n- two");
}

#[test]
fn text_that_reads_as_a_marker_is_escaped() {
    assert_eq!(md("<ul><li>Price</li><li><p>$</p><p>-</p></li></ul>"), "- Price\n- $\n  \\-");
}

#[test]
fn a_heading_holding_blocks_stays_one_heading() {
    assert_eq!(md("<h2><div>Title</div></h2><p>text</p>"), "## Title\n\ntext");
    assert_eq!(md("<h1><span>Part</span><br><small>two</small></h1>"), "# Part two");
    assert_eq!(md("<h3></h3><h3> <a href=\"#top\"></a></h3><p>body</p>"), "body");
}

#[test]
fn a_table_gets_a_header_line_and_rows_stay_whole() {
    let out = md("<table><tr><th>name</th><th>value</th></tr>\
         <tr><td><p>first</p><p>second</p></td><td>a | b<br>c</td></tr></table>");
    assert_eq!(out, "| name | value |\n| --- | --- |\n| first second | a \\| b c |");
}

#[test]
fn a_cell_spanning_columns_counts_them_in_the_header_line() {
    let out = md("<table><tr><td colspan=2>wide</td></tr><tr><td>a</td><td>b</td></tr></table>");
    assert_eq!(out, "| wide |\n| --- | --- |\n| a | b |");
}

#[test]
fn a_table_of_empty_cells_leaves_nothing() {
    let out = md(
        "<p>before</p><table><tr><td> </td><td><img src=\"spacer.gif\"></td></tr><tr><td></td></tr></table><p>after</p>",
    );
    assert_eq!(out, "before\n\nafter");
    let icons = md("<table><tr><td><a href=\"/x\"><img src=\"x.png\"></a></td><td>|</td></tr></table>text");
    assert_eq!(icons, "| | \\| |\n| --- | --- |\n\ntext");
    assert_eq!(md("<table><tr><td><a href=\"/x\"><img src=\"x.png\"></a></td></tr></table>text"), "text");
}

#[test]
fn a_table_holding_a_table_is_laid_out_as_blocks() {
    let out = md("<table><tr><td><h2>Menu</h2><table><tr><td>x</td><td>1</td></tr></table></td>\
         <td><p>Story</p></td></tr></table>");
    assert_eq!(out, "## Menu\n\n| x | 1 |\n| --- | --- |\n\nStory");
}

// Character references: the whole table.

#[test]
fn every_named_reference_is_decoded() {
    assert_eq!(
        md("<p>&hearts; &Aring;ngstr&ouml;m &NotEqualTilde; &fjlig; &zwnj;|&bne;</p>"),
        "♥ Ångström ≂̸ fj \u{200c}|=⃥"
    );
    assert_eq!(entities::ENTITIES.len(), 2231);
    assert!(entities::ENTITIES.windows(2).all(|w| w[0].0 < w[1].0), "the table is not sorted");
}

#[test]
fn legacy_names_without_a_semicolon_and_numbers_are_decoded_as_browsers_do() {
    assert_eq!(
        md("<p>&copy2024 &notit; &amp &#150; &#x1F600; &#0; &#99999999999; &unknown;</p>"),
        "©2024 ¬it; & – 😀 \u{fffd} \u{fffd} &unknown;"
    );
}

#[test]
fn a_query_string_in_a_link_is_not_taken_for_references() {
    assert_eq!(md("<a href=\"/s?a=1&copy=2&lang=en\">s</a>"), "[s](https://example.com/s?a=1&copy=2&lang=en)");
}

// `<base href>` and link fragments.

#[test]
fn links_resolve_against_the_base_element() {
    let out = md(
        "<head><base href=\"https://docs.example.org/v2/\"></head><a href=\"guide.html\">g</a> <a href=\"/x\">x</a>",
    );
    assert_eq!(out, "[g](https://docs.example.org/v2/guide.html) [x](https://docs.example.org/x)");
    let relative = md("<base href=\"../other/\"><base href=\"/ignored/\"><a href=\"a\">a</a>");
    assert_eq!(relative, "[a](https://example.com/other/a)");
}

#[test]
fn a_links_fragment_is_kept() {
    let out = md("<a href=\"other.html#part-2\">part</a> <a href=\"#top\">top</a> <a href=\"javascript:go()\">go</a>");
    assert_eq!(out, "[part](https://example.com/docs/other.html#part-2) top go");
}

// `<math>`.

#[test]
fn a_formula_is_written_as_tex_or_as_its_text() {
    assert_eq!(md("<p>Area <math alttext=\"\\pi r^2\"><mi>π</mi></math>.</p>"), "Area $\\pi r^2$ .");
    let annotated = "<math display=\"block\"><semantics><mrow><mi>x</mi></mrow>\
        <annotation encoding=\"application/x-tex\">x^{2} &lt; 1</annotation></semantics></math>";
    assert_eq!(md(annotated), "$$x^{2} < 1$$");
    assert_eq!(md("<p>so <math><mi>x</mi><mo>+</mo><mn>1</mn></math> is</p>"), "so x+1 is");
}

// A linear scan for the end of a skipped element.

#[test]
fn a_skipped_element_ends_at_its_own_closing_tag_only() {
    let out = md("<script>a = '</scripty>'; SECRET()</SCRIPT ><p>after</p><style>p{}</style-x></style>shown");
    assert_eq!(out, "after\n\nshown");
}

#[test]
fn many_skipped_elements_in_a_large_page_all_convert() {
    let page = "<p>Word</p><script>var x = 1;</script><STYLE>p{}</STYLE>".repeat(20_000);
    let out = md(&page);
    assert_eq!(out.matches("Word").count(), 20_000);
    assert!(!out.contains("var x"));
}
