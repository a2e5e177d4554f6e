"""Maven's own configuration for a build started in a workspace root, read the way mvn reads it.

- `maven_basedir`: the folder whose `.mvn/` applies (the nearest of the root and its ancestors with a
  `.mvn` folder, as the mvn script looks for it). pybridge runs every mvn in the root with
  MAVEN_BASEDIR set to it, also on its throwaway POMs, so `.mvn/maven.config`, `.mvn/jvm.config`
  and `.mvn/extensions.xml` apply as they do for the user.
- `config_words`: the command-line words `.mvn/maven.config` and MAVEN_ARGS add to every mvn run.
- `settings_files`: the settings files named there (`-s`, `--settings`, `-gs`, `--global-settings`).
- `local_repository`: where Maven keeps artifacts: `-Dmaven.repo.local` given there or in MAVEN_OPTS,
  else `<localRepository>` of the user settings (the one named with `-s`, else
  `~/.m2/settings.xml`), else `~/.m2/repository`. Relative paths are taken from the root, the
  folder mvn runs in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from .xmlread import PomError, parse_xml, text

SETTINGS_OPTIONS = ("-s", "--settings", "-gs", "--global-settings")
USER_SETTINGS_OPTIONS = ("-s", "--settings")
_REPO_LOCAL = re.compile(r"^-Dmaven\.repo\.local=(.+)$")


def maven_basedir(root: Path) -> Path:
    root = root.resolve()
    for folder in (root, *root.parents):
        if (folder / ".mvn").is_dir():
            return folder
    return root


def config_words(root: Path, env: Mapping[str, str] | None = None) -> list[str]:
    env = os.environ if env is None else env
    try:
        words = (maven_basedir(root) / ".mvn" / "maven.config").read_text(encoding="utf-8",
                                                                         errors="replace").split()
    except OSError:
        words = []
    return words + env.get("MAVEN_ARGS", "").split()


def _option_values(words: list[str], options: tuple[str, ...]) -> list[str]:
    out = []
    for i, word in enumerate(words):
        option, eq, value = word.partition("=")
        if option not in options:
            continue
        if not eq:
            value = words[i + 1] if i + 1 < len(words) else ""
        if value:
            out.append(value)
    return out


def settings_files(root: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    return [root / Path(v).expanduser() for v in _option_values(config_words(root, env), SETTINGS_OPTIONS)]


def local_repository(root: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    home = Path.home()
    words = config_words(root, env) if root is not None else []
    # a -D on the command line overrides the JVM's (MAVEN_OPTS); the last one given wins
    for word in [*reversed(words), *reversed(env.get("MAVEN_OPTS", "").split())]:
        m = _REPO_LOCAL.match(word)
        if m and "${" not in m.group(1):
            return (root or Path.cwd()) / Path(m.group(1)).expanduser()
    named = _option_values(words, USER_SETTINGS_OPTIONS)
    settings = (root or Path.cwd()) / Path(named[-1]).expanduser() if named else home / ".m2" / "settings.xml"
    if settings.is_file():
        try:
            value = text(parse_xml(settings), "localRepository")
        except PomError:
            value = None
        if value:
            value = value.replace("${user.home}", str(home))
            if "${" not in value:
                return (root or Path.cwd()) / Path(value).expanduser()
    return home / ".m2" / "repository"
