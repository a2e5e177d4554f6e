"""The source-line cache's split (`Sources.lines`): the compiler's line breaks, `\\n`, `\\r\\n` and `\\r`."""

from __future__ import annotations

from pybridge.query import source
from pybridge.query.source import Sources

LINE_BREAK = source._LINE_BREAK


class CountedPattern:
    def __init__(self) -> None:
        self.splits = 0

    def split(self, text: str) -> list[str]:
        self.splits += 1
        return LINE_BREAK.split(text)


def test_a_file_without_carriage_returns_is_split_without_the_pattern_and_to_the_same_lines(tmp_path, monkeypatch):
    texts = {"unix.java": "class A {\n  int a;\n\n}\n", "dos.java": "class B {\r\n  int b;\r\n}\r\n",
             "mac.java": "class C {\r int c;\r}", "mixed.java": "a\nb\r\nc\rd\n\u2028e\x0bf\x0cg\x85h",
             "empty.java": "", "bom.java": "\ufeffclass D {}\n"}
    for name, text in texts.items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    counted = CountedPattern()
    monkeypatch.setattr(source, "_LINE_BREAK", counted)
    sources = Sources(tmp_path.resolve())
    for name, text in texts.items():
        expected = tuple(LINE_BREAK.split(text.removeprefix("\ufeff")))
        assert sources.lines(name) == expected, name
    assert counted.splits == 3         # the three files with a carriage return
    assert sources.lines("mixed.java") == ("a", "b", "c", "d", "\u2028e\x0bf\x0cg\x85h")
