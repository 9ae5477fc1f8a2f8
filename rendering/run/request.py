"""What a command was asked to render, as one record, and the jobs it becomes.

The command line folds its options into a `JobOptions`; checking the lesson and making
speech happen here, with errors a caller can show as one line (`RequestError`, or the
error of the step that refused).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path

from lesson import registry
from lesson.brand import BrandError, Look, glyph_problem, look_of
from lesson.catalogue import COMMON, catalogue
from lesson.fonts import FONT
from lesson.palette import PALETTE, ThemeError, palette_of
from pe_math import ParamError, Params, parse_assignment
from pe_math.params import lesson_file, read_toml
from rendering.core import settings
from rendering.core.files import write_problem
from rendering.core.jobs import Job
from rendering.run.preflight import check_writable
from rendering.speech import narration, voices

DEFAULT_OUTPUT = Path("media")
DEFAULT_VOICE_DIR = Path("voice")


class RequestError(ValueError):
    """The request cannot be rendered as given; the message says what to change."""


def load_params(config: str | None, sets: tuple[str, ...], seed: int | None) -> Params:
    """The lesson's knobs: lesson.toml (or `config`), then each KEY=VALUE, then the seed."""
    try:
        overrides = dict(parse_assignment(s) for s in sets)
        if seed is not None:
            overrides.update(proj_seed=seed, learned_seed=seed)
        params = Params.load(config, overrides)
    except ParamError as exc:
        raise RequestError(str(exc)) from None
    check_glyphs(params)
    return params


def check_glyphs(
    params: Params, where: str = "", font: str = FONT, lang: str | None = None
) -> None:
    """Refuse tokens the font cannot draw (with `lang`, only those that language shows)."""
    for name in ("tokens", "tokens_en"):
        if lang is not None and registry.LANGUAGE_FIELDS[name] != lang:
            continue
        problem = glyph_problem(font, "".join(getattr(params, name)))
        if problem:
            raise RequestError(f"{where}{name}: {problem}; use letters or Chinese characters")


_JOB = {f.name: f.default for f in fields(Job)}


@dataclass(frozen=True)
class JobOptions:
    """What a command was asked to render, as the options gave it: the settings a Job
    takes (with a Job's defaults), and where the knobs, voices and outputs are."""

    quality: str = _JOB["quality"]
    lang: str = _JOB["lang"]
    fmt: str = _JOB["fmt"]
    aspect: str = _JOB["aspect"]
    transparent: bool = _JOB["transparent"]
    burn_captions: bool = _JOB["burn_captions"]
    output: Path = DEFAULT_OUTPUT
    sets: tuple[str, ...] = ()
    config: str | None = None
    seed: int | None = None
    voice: str = "none"
    voice_dir: Path = DEFAULT_VOICE_DIR

    def params(self) -> Params:
        return load_params(self.config, self.sets, self.seed)

    def voices(self) -> dict[str, voices.VoiceSpec]:
        return voices.load_specs(self.config)

    def palette(self) -> tuple[tuple[str, str], ...]:
        """The colours [theme] asks for, as a Job takes them (none for the default)."""
        try:
            chosen = palette_of(read_toml(self.config).get("theme"))
        except (ThemeError, ParamError) as exc:
            raise RequestError(str(exc)) from None
        return () if chosen == PALETTE else tuple(sorted(chosen.items()))

    def look(self, slugs: list[str]) -> Look:
        """The brand and font [brand] and [theme.font] ask for in these options' language,
        as a Job takes them; a font must draw every word of `slugs` in that language."""
        source = Path(self.config) if self.config else lesson_file()
        try:
            tables = read_toml(self.config)
            look = look_of(tables.get("brand"), tables.get("theme"), self.lang, source.parent)
            font = dict(look).get("font")
            for slug in [COMMON, *slugs] if font else ():  # the words shown, not those said
                shown = {k: v for k, v in catalogue(self.lang, slug).items() if k != "say"}
                problem = glyph_problem(font, "".join(_strings(shown)))
                if problem:
                    raise BrandError(f"[theme.font] {self.lang}: {problem} ({slug})")
        except (BrandError, ParamError) as exc:
            raise RequestError(str(exc)) from None
        return look

    def jobs(
        self,
        slugs: list[str],
        params: Params,
        synthesize: bool = True,
        advance: Callable[[], None] = lambda: None,
    ) -> list[Job]:
        """Jobs for `slugs`, each with its narration (synthesised now unless `synthesize`
        is off); `advance` is called as each scene's speech is ready."""
        settings.check_format(self.fmt, self.transparent)
        for slug in slugs:
            registry.check_catalogues(slug)
        palette, look = self.palette(), self.look(slugs)  # before any speech is made
        check_glyphs(params, font=dict(look).get("font", FONT), lang=self.lang)
        speech = self.narrations(slugs, params, synthesize, advance)
        return [self.job(s, params, speech[s], palette=palette, look=look) for s in slugs]

    def narrations(
        self,
        slugs: list[str],
        params: Params,
        synthesize: bool = True,
        advance: Callable[[], None] = lambda: None,
    ) -> dict[str, narration.Narration | None]:
        """Each scene's narration at `params` in these options' language and voice."""
        cache = self.output / narration.CACHE
        try:
            if synthesize and self.voice != "none":
                check_writable(cache)  # before any speech is made
            return narration.narrate_scenes(
                slugs,
                self.lang,
                self.voice,
                self.voices(),
                self.voice_dir,
                cache,
                synthesize,
                params,
                advance,
            )
        except OSError as exc:  # the speech cache: a full disk (every write is atomic)
            raise RequestError(write_problem(exc)) from None

    def job(self, slug: str, params: Params, narration=None, **other) -> Job:
        """The Job of `slug` with these options' settings; `other` overrides some by name."""
        taken = {f.name: getattr(self, f.name) for f in fields(self) if f.name in _JOB}
        return Job(**{**taken, "slug": slug, "params": params, "narration": narration, **other})


def _strings(table: object) -> list[str]:
    """Every string a catalogue table holds, however deep."""
    if isinstance(table, str):
        return [table]
    if isinstance(table, dict):
        return [s for value in table.values() for s in _strings(value)]
    if isinstance(table, list):
        return [s for value in table for s in _strings(value)]
    return []
