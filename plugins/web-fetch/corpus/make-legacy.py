#!/usr/bin/env python3
"""Writes the non-UTF-8 pages of the corpus (legacy/) from UTF-8 pages of pages/.

Each page is transcoded with its charset declaration changed to say so; characters the
encoding lacks become numeric character references, as a browser writes them. Run from
this folder: python3 make-legacy.py
"""
import re

# (source page, output file, Python codec, how the charset is declared)
PAGES = [
    # qq.com's page declared gb2312 and was saved as UTF-8: its bytes are made to match.
    ("qq", "qq.gbk.html", "gbk", ("meta", "gb2312")),
    ("hukumusume", "hukumusume.shift_jis.html", "shift_jis", ("meta", "Shift_JIS")),
    ("aktualne", "aktualne.windows-1250.html", "cp1250", ("meta", "windows-1250")),
    ("lemonde-1", "lemonde-1.iso-8859-1.html", "latin-1", ("meta", "iso-8859-1")),
    # No declaration in the page: the charset comes from the Content-Type header only.
    ("heise", "heise.iso-8859-1.header.html", "latin-1", ("header", "ISO-8859-1")),
    # No declaration at all: a UTF-16LE byte order mark says it.
    ("ol", "ol.utf-16le.bom.html", "utf-16", ("bom", None)),
]

META = re.compile(r'(<meta[^>]*charset=)["\']?[A-Za-z0-9_-]+', re.I)

for source, output, codec, (how, label) in PAGES:
    with open(f"pages/{source}.html", encoding="utf-8") as f:
        text = f.read()
    head, rest = text[:1024], text[1024:]
    if how == "meta":
        head, n = META.subn(lambda m: m.group(1) + ('"' if m.group(0)[len(m.group(1))] == '"' else "") + label, head, count=1)
        assert n == 1, source
    else:
        head = re.sub(r"<meta[^>]*charset=[^>]*>", "", head, flags=re.I)
    data = (head + rest).encode(codec, errors="xmlcharrefreplace")
    with open(f"legacy/{output}", "wb") as f:
        f.write(data)
