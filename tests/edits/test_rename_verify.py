"""rename_verify.Rekey: the keys no compiled file declares, mapped through a type's rename (no JVM)."""

from __future__ import annotations

from pybridge.edits.rename import RenamePlan
from pybridge.edits.rename_verify import Rekey
from pybridge.facts import Span
from pybridge.store import DeclRow

OLD, NEW = "Lp/Outer$Old;", "Lp/Outer$New;"


def _plan() -> RenamePlan:
    span = Span(3, 16, 3, 19)
    old = DeclRow(1, OLD, "ENUM", "Old", "Old", "p.Outer.Old", "", "src/p/Outer.java", "m", "main", span, span, 0,
                  2, "Lp/Outer;")
    return RenamePlan(old, "Old", "New", [old], [], [], [], [])


def test_a_key_that_embeds_the_renamed_type_follows_it_and_no_other_does():
    declared = {OLD: NEW, "Lp/Outer$Old;.next()Lp/Outer$Old;": "Lp/Outer$New;.next()Lp/Outer$New;"}
    mapped = Rekey(_plan(), declared)
    assert mapped("Lp/Outer$Old;.values()[Lp/Outer$Old;") == "Lp/Outer$New;.values()[Lp/Outer$New;"
    assert mapped("Lp/Outer$Old;.valueOf(Ljava/lang/String;)Lp/Outer$Old;") == \
        "Lp/Outer$New;.valueOf(Ljava/lang/String;)Lp/Outer$New;"
    assert mapped("Lp/Outer$Old$Inner;.x)I") == "Lp/Outer$New$Inner;.x)I"
    assert mapped("Ljava/util/EnumSet;.allOf<E:Ljava/lang/Enum<TE;>;>(Ljava/lang/Class<TE;>;)"
                  "Ljava/util/EnumSet<TE;>;%<Lp/Outer$Old;>") == \
        "Ljava/util/EnumSet;.allOf<E:Ljava/lang/Enum<TE;>;>(Ljava/lang/Class<TE;>;)Ljava/util/EnumSet<TE;>;%<Lp/Outer$New;>"
    assert mapped("Ljava/util/List<Lp/Outer$Old;>;") == "Ljava/util/List<Lp/Outer$New;>;"
    # a declared key maps as declared; a longer name, or the name inside another, stays
    assert mapped("Lp/Outer$Old;.next()Lp/Outer$Old;") == "Lp/Outer$New;.next()Lp/Outer$New;"
    assert mapped("Lp/Outer$OldOne;") == "Lp/Outer$OldOne;"
    assert mapped("Lq/XLp/Outer$Old;") == "Lq/XLp/Outer$Old;"
    assert mapped("Lp/Outer;.old()V") == "Lp/Outer;.old()V"
