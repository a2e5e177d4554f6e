"""What every build system says about Java the same way: release numbers and the defaults.

`parse_release` reads the spellings builds use for a Java version (`1.8`, `8`,
`11`, `17.0.2`) as the release number the compiler takes. When a build says
nothing, a module compiles for `DEFAULT_RELEASE` (the JDK pybridge runs on) in
`DEFAULT_ENCODING`.
"""

from __future__ import annotations

import re

DEFAULT_RELEASE = 17
DEFAULT_ENCODING = "UTF-8"

_RELEASE = re.compile(r"^(?:1\.)?(\d+)(?:\.\d+)*$")


def parse_release(value: str | None) -> int | None:
    """The release number a version spelling names (`1.8` -> 8, `11` -> 11); None when it names none."""
    if not value:
        return None
    m = _RELEASE.match(value.strip())
    return int(m.group(1)) if m else None
