"""Random edits of the kinds a teacher makes, each rendered twice: on top of the last
render (kept clips and beats reused) and clean into a fresh folder. The two must be the
same clip: every frame, the sound samples, the subtitles, the manifest's beats and
spoken spans. tests/test_incremental_equals_clean.py runs a few with a fixed seed;
bench/fuzz_edits.py runs many.

Every edit goes to copies in a folder of the fuzzer's own: the words (a PE_CAPTIONS
folder, and the catalogue of a scene plugin kept outside the project), the plugin's code
and its helper module, a lesson file, the recordings, and a copy of the project's code
(`copy_project`), whose pe_math is edited too. The fuzzer runs inside that copy
(bench/fuzz_edits.py starts it there), so its keys and workers read the edited copy;
the project's own files are only read.

A process keeps the modules it imported: pe_math as the fuzzer's process first read it
gives the numbers a driver computes (spoken values), while each render's workers import
the edited copy afresh. So the pe_math edit changes a function that only drawing reads.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import sys
import time
import tomllib
import wave
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import av
import numpy as np
from click.testing import CliRunner

from pe_math.params import DEFAULT_TOML
from rendering.core import keys, settings

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = "fuzz_card"  # the plugin scene's module, written outside the project
HELPER = "fuzz_look"  # its own helper module, beside it
TINY = "tiny"  # tests.plugin_scenes: a small scene of the project's tests

SCENE_CODE = '''"""A scene plugin kept outside the project, with a helper module of its own."""

from pathlib import Path

from manim import DOWN, UP, FadeIn, Square, Write

import {helper} as look
from lesson.registry import SceneInfo, register
from scenes.kit.base import LessonScene
from lesson.catalogue import add_root

add_root(Path(__file__).resolve().parent / "captions")
FILL = {fill}


class FuzzCard(LessonScene):
    slug = "fuzz-card"

    @classmethod
    def numbers(cls, params):
        return {{"bits": params.n_bits}}

    def construct(self):
        self.beat("one")
        self.play(Write(self.words.label("count", value=self.numbers(self.params)["bits"])), run_time=look.RUN)
{aside}        self.beat("two")
        square = Square(side_length=look.SIDE, color=look.COLOUR).shift(DOWN)
        square.set_fill(FILL, opacity=0.5).rotate(look.tilt())
        self.play(FadeIn(square), run_time=1)
{three}        self.takeaway()


# just before tests.plugin_scenes' tiny (90): a bridge line points to it
register(SceneInfo("fuzz-card", __name__, "FuzzCard", 89, ("n_bits",)))
'''

HELPER_CODE = '''from pe_math.geometry import clock_angles

{constants}

def tilt() -> float:
    """The square's turn: the first clock hand's angle at position 1 (a pe_math function)."""
    return float(clock_angles(1, 4)[0])
'''
# beats a teacher adds or removes: their code in the scene, their line in both catalogues
OPTIONAL_BEATS = {
    "aside": '        self.beat("aside")\n        self.wait(0.5)\n',
    "three": '        self.beat("three")\n        self.play(square.animate.shift(UP), run_time=1)\n',
}
# constants of the plugin's helper module, and of the scene module itself (IN_SCENE)
LOOKS = {
    "SIDE": ["1.0", "1.5", "0.8"],
    "COLOUR": ['"#58C4DD"', '"#FC6255"'],
    "RUN": ["1", "1.5"],
    "FILL": ['"#83C167"', '"#FFFF00"', '"#9A72AC"'],
}
IN_SCENE = ("FILL",)
# a pe_math function the plugin draws with: its formula's factor is edited in the copy
MATH_FILE = Path("pe_math") / "geometry.py"
MATH_LINE = "    return {factor}float(position) * frequencies(d_model, base, variant)"
MATH_FACTORS = ["", "0.5 * ", "2.0 * "]
CARD_WORDS = {
    "title": "Fuzz card",
    "takeaway": "Edits render as a clean render would.",
    "ui": {"count": "bits: {value}"},
    "say": {
        "one": "The first beat counts the bits.",
        "two": "Then a square fades in below.",
        "three": "It rises to the middle.",  # "aside" is added by an edit
        "takeaway": "So an edit renders as a clean render would.",
    },
}
CARD_ZH = {  # a beat's line is in both languages (the other's subtitles are written too)
    "one": "第一拍数位。",
    "aside": "顺便说一句。",
    "two": "然后下方淡入一个方块。",
    "three": "它升到中间。",
    "takeaway": "所以改过的渲染与全新渲染一样。",
    "bridge": "下一个，小场景。",
}
WORDS = ["quietly", "again", "with care", "for the class", "once more", "slowly"]


def write_if_changed(path: Path, text: str) -> None:
    """Write `text` unless the file holds it already (an unedited file keeps its stamp)."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def toml_text(table: dict, prefix: str = "") -> str:
    """A catalogue as TOML: its values first, then each table."""
    lines = [
        f"{toml_key(k)} = {json.dumps(v, ensure_ascii=False)}"
        for k, v in table.items()
        if not isinstance(v, dict)
    ]
    for k, v in table.items():
        if isinstance(v, dict):
            name = f"{prefix}{toml_key(k)}"
            lines += ["", f"[{name}]", toml_text(v, f"{name}.")]
    return "\n".join(lines) + "\n"


def tone(path: Path, seconds: float, pitch: float) -> None:
    """A take: a quiet tone of `seconds` at `pitch` Hz, as a 24 kHz mono WAV."""
    rate = 24000
    t = np.arange(round(seconds * rate)) / rate
    samples = (0.25 * np.sin(2 * np.pi * pitch * t) * 32767).astype("<i2")
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())


PROJECT = ("render.py", "pyproject.toml", *keys.PROJECT_PACKAGES)
PROJECT += ("bench/fuzz_edits.py", "bench/edit_fuzz.py")
PROJECT += tuple(f"tests/{n}" for n in ("__init__.py", "plugin_scenes.py", "captions"))


def copy_project(home: Path) -> Path:
    """A copy of the project's code for the fuzzer to run in and edit: `home`/project."""
    project = home / "project"
    for name in PROJECT:
        source, target = ROOT / name, project / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    return project


@dataclass
class World:
    """The edited copies: words, plugin and pe_math code, lesson file, recordings, --set knobs."""

    home: Path
    extra: str | None = None  # a lesson chapter, or another scene of the tests, edited too
    quality: str = "t"  # both renders of an edit are drawn alike, so a tiny frame checks as much
    words: dict[str, dict] = field(default_factory=dict)  # slug -> its en catalogue
    looks: dict[str, str] = field(default_factory=dict)
    sets: dict[str, str] = field(default_factory=dict)
    config: dict[str, str] = field(default_factory=dict)  # lesson.toml line starts -> line
    takes: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    unsaid: dict[str, str] = field(default_factory=lambda: {"aside": "A word on the side."})
    factor: str = ""  # of the pe_math formula the plugin draws with

    @property
    def project(self) -> Path:
        """The copy of the project's code the fuzzer runs in (see copy_project)."""
        return self.home / "project"

    @property
    def plugins(self) -> Path:
        return self.home / "plugins"

    @property
    def captions(self) -> Path:
        return self.home / "captions"

    @property
    def lesson(self) -> Path:
        return self.home / "lesson.toml"

    @property
    def voices(self) -> Path:
        return self.home / "voice"

    def options(self) -> str:
        """The fuzzer's options that made this world, for a reproduction line."""
        scene = f" --scene {self.extra}" if self.extra else ""
        return f"{scene} --quality {self.quality}"

    def clips(self, out: Path) -> Path:
        """Where a render into `out` puts its clips and manifest."""
        return out / "en" / settings.folder_name(self.quality, "16:9")

    def catalogue_path(self, slug: str) -> Path:
        if slug != "fuzz-card":
            return self.captions / "en" / f"{slug}.toml"
        return self.plugins / "captions" / "en" / f"{slug}.toml"

    def create(self) -> None:
        shutil.copytree(ROOT / "tests" / "captions", self.captions)
        for lang in ("en", "zh"):
            (self.plugins / "captions" / lang).mkdir(parents=True)
        self.words = {
            TINY: tomllib.loads((self.captions / "en" / f"{TINY}.toml").read_text()),
            "fuzz-card": json.loads(json.dumps(CARD_WORDS)),
        }
        if self.extra:
            words = self.captions / "en" / f"{self.extra}.toml"  # a scene of the tests
            if not words.is_file():
                words = ROOT / "scenes" / "chapters" / self.extra.replace("-", "_") / "en.toml"
            self.words[self.extra] = tomllib.loads(words.read_text(encoding="utf-8"))
        self.looks = {name: values[0] for name, values in LOOKS.items()}
        self.config = {
            "base =": "base = 10000.0",
            "n_bits =": "n_bits = 4",
            "speed =": "speed = 1.0",
        }
        self.write()

    def write(self) -> None:
        for slug, table in self.words.items():
            self.catalogue_path(slug).write_text(toml_text(table), encoding="utf-8")
        zh = json.loads(json.dumps(CARD_WORDS))
        zh["say"] = {beat: CARD_ZH[beat] for beat in self.words["fuzz-card"]["say"]}
        zh_file = self.plugins / "captions" / "zh" / "fuzz-card.toml"
        zh_file.write_text(toml_text(zh), encoding="utf-8")
        fill = self.looks["FILL"]
        said = self.words["fuzz-card"]["say"]
        beats = {beat: code if beat in said else "" for beat, code in OPTIONAL_BEATS.items()}
        code = SCENE_CODE.format(helper=HELPER, fill=fill, **beats)
        write_if_changed(self.plugins / f"{PLUGIN}.py", code)
        constants = "".join(f"{k} = {v}\n" for k, v in self.looks.items() if k not in IN_SCENE)
        write_if_changed(self.plugins / f"{HELPER}.py", HELPER_CODE.format(constants=constants))
        math = self.project / MATH_FILE
        text = math.read_text(encoding="utf-8")
        lines = [MATH_LINE.format(factor=f) for f in MATH_FACTORS]
        now = next((line for line in lines if line in text.splitlines()), None)
        if now is None:
            raise RuntimeError(f"{MATH_FILE} no longer has the line {lines[0].strip()!r}")
        write_if_changed(math, text.replace(now, MATH_LINE.format(factor=self.factor)))
        self.lesson.write_text(self.lesson_text(), encoding="utf-8")
        shutil.rmtree(self.voices, ignore_errors=True)
        for (slug, beat), (seconds, pitch) in self.takes.items():
            tone(self.voices / "en" / slug / f"{beat}.wav", seconds, pitch)

    def lesson_text(self) -> str:
        """The default lesson file with the world's knobs, English spoken by espeak (fast,
        and the same on every machine). Each line the world sets must be found once, so
        that an edit of it is never silently lost when lesson.toml changes."""
        voice = {"engine =": 'engine = "espeak"', "voice =": 'voice = "en-us"'}
        voice["speed ="] = self.config["speed ="]
        knobs = {start: line for start, line in self.config.items() if start != "speed ="}
        lines, section, found = [], "", []
        for line in DEFAULT_TOML.read_text(encoding="utf-8").splitlines():
            section = line.strip() if line.startswith("[") else section
            table = voice if section == "[voice.en]" else knobs if section == "" else {}
            start = next((s for s in table if line.startswith(s)), None)
            found += [f"{section} {start}".strip()] if start else []
            lines.append(table[start] if start else line)
        wanted = [f"[voice.en] {s}" for s in voice] + list(knobs)
        astray = [line for line in wanted if found.count(line) != 1]
        if astray:
            raise RuntimeError(f"{DEFAULT_TOML.name} no longer has one each of {astray}")
        return "\n".join(lines) + "\n"

    def environment(self) -> dict[str, str]:
        plugins = f"tests.plugin_scenes,{PLUGIN}"
        path = os.pathsep.join(filter(None, [str(self.plugins), os.environ.get("PYTHONPATH")]))
        return {"PE_SCENE_PLUGINS": plugins, "PYTHONPATH": path, "PE_CAPTIONS": str(self.captions)}


# ----------------------------------------------------------------- the edits
Edit = Callable[[World, random.Random], str]  # applies one edit, returns its description


def reword(world: World, rng: random.Random) -> str:
    slug = rng.choice(sorted(world.words))
    say = world.words[slug]["say"]
    beat = rng.choice(sorted(k for k, v in say.items() if isinstance(v, str)))
    line = say[beat]
    if rng.random() < 0.5 or len(line.split()) < 5:
        new = line.rstrip(".") + f", {rng.choice(WORDS)}."
    else:
        new = " ".join(line.split()[:-1]).rstrip(",") + "."
    world.words[slug]["say"][beat] = new
    return f"reword {slug} say.{beat} to {new!r}"


def bridge(world: World, rng: random.Random) -> str:
    say = world.words["fuzz-card"]["say"]
    if say.pop("bridge", None) is not None:
        return "remove fuzz-card say.bridge"
    say["bridge"] = "Next, the tiny scene."
    return "add fuzz-card say.bridge"


LABELS = {TINY: "omega", "fuzz-card": "count", "tiny-static": "bits"}  # a label of each


def label(world: World, rng: random.Random) -> str:
    slug, key = rng.choice([(s, k) for s, k in LABELS.items() if s in world.words])
    old = world.words[slug]["ui"][key]
    shouted = old.replace("{value}", "\0").upper().replace("\0", "{value}")  # slot kept
    new = rng.choice(["{value} now", "value: {value}", "= {value} =", shouted])
    new = new if new != old else f"({old})"
    world.words[slug]["ui"][key] = new
    return f"set {slug} ui.{key} to {new!r}"


KNOBS = {"base": ["10000.0", "100.0", "500.0", "1000.0"], "n_bits": ["4", "3", "5", "6"]}


def knob_set(world: World, rng: random.Random) -> str:
    name = rng.choice(sorted(KNOBS))
    now = world.sets.get(name, world.config[f"{name} ="].partition("= ")[2])
    world.sets[name] = rng.choice([v for v in KNOBS[name] if v != now])
    return f"--set {name}={world.sets[name]}"


def knob_file(world: World, rng: random.Random) -> str:
    name = rng.choice(sorted(KNOBS))
    now = world.config[f"{name} ="].partition("= ")[2]
    world.config[f"{name} ="] = line = (
        f"{name} = {rng.choice([v for v in KNOBS[name] if v != now])}"
    )
    shown = " (under a --set of it)" if name in world.sets else ""
    return f"lesson.toml {line}{shown}"


def beat_line(world: World, rng: random.Random) -> str:
    """Add a beat to the plugin scene or remove one (not the bridge): its line in both
    catalogues and its code, as a teacher adds a step to a chapter."""
    beat = rng.choice(sorted(OPTIONAL_BEATS))
    say = world.words["fuzz-card"]["say"]
    if beat in world.unsaid:
        say[beat] = world.unsaid.pop(beat)
        return f"add the beat fuzz-card {beat} (its say line and code)"
    world.unsaid[beat] = say.pop(beat)
    return f"remove the beat fuzz-card {beat} (its say line and code)"


def code(world: World, rng: random.Random) -> str:
    name = rng.choice(sorted(LOOKS))
    world.looks[name] = rng.choice([v for v in LOOKS[name] if v != world.looks[name]])
    return f"{PLUGIN if name in IN_SCENE else HELPER}.py {name} = {world.looks[name]}"


def math(world: World, rng: random.Random) -> str:
    world.factor = rng.choice([f for f in MATH_FACTORS if f != world.factor])
    return f"{MATH_FILE.as_posix()}: {MATH_LINE.format(factor=world.factor).strip()}"


def recording(world: World, rng: random.Random) -> str:
    slug = rng.choice(sorted(world.words))
    beat = rng.choice(sorted(world.words[slug]["say"]))
    if (slug, beat) in world.takes and rng.random() < 0.5:
        del world.takes[slug, beat]
        return f"delete the recording of {slug}/{beat}"
    take = (round(rng.uniform(1.0, 2.2), 2), rng.choice([220.0, 330.0, 440.0]))
    world.takes[slug, beat] = take
    return f"record {slug}/{beat} as a {take[0]} s take at {take[1]:.0f} Hz"


def speed(world: World, rng: random.Random) -> str:
    now = world.config["speed ="].partition("= ")[2]
    world.config["speed ="] = (
        f"speed = {rng.choice([v for v in ('0.9', '1.0', '1.2') if v != now])}"
    )
    return f"lesson.toml voice.en {world.config['speed =']}"


EDITS: dict[str, Edit] = {
    "reword": reword,
    "bridge": bridge,
    "beat-line": beat_line,
    "label": label,
    "knob-set": knob_set,
    "knob-file": knob_file,
    "code": code,
    "pe-math": math,
    "recording": recording,
    "speed": speed,
}


# ----------------------------------------------------------------- render and compare
def render(world: World, out: Path, slugs: list[str]) -> str:
    """Render `slugs` into `out` with the world's copies; returns the command's output."""
    from render import cli

    args = ["render", *slugs, "-q", world.quality, "--jobs", "2", "--output", str(out)]
    args += ["--config", str(world.lesson), "--voice-dir", str(world.voices)]
    for name, value in sorted(world.sets.items()):
        args += ["--set", f"{name}={value}"]
    result = CliRunner().invoke(cli, args)
    if result.exit_code != 0:
        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        raise RenderFailed(
            errors[0] if errors else f"exit {result.exit_code}: {result.exception!r}"
        )
    return result.output


class RenderFailed(RuntimeError):
    """A render of the fuzzer's copies did not finish (its first error line)."""


def fingerprint(folder: Path, slug: str) -> dict[str, str]:
    """What a clip is made of, each part hashed: frames, sound, subtitles, beats, spans
    (`folder`: where the render put its clips, World.clips)."""
    from rendering.speech import audio

    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["clips"][slug]["mp4"]
    clip = folder / entry["file"]
    frames = hashlib.sha256()
    with av.open(str(clip)) as container:
        for frame in container.decode(video=0):
            frames.update(frame.to_ndarray(format="rgb24").tobytes())
    sound = audio.decode(clip) if entry.get("sound") else np.zeros(0)
    subtitles = subtitle_texts(folder, entry)

    def digest(value) -> str:
        blob = value if isinstance(value, bytes) else json.dumps(value, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    return {
        "frames": frames.hexdigest()[:16],
        "sound": digest(np.ascontiguousarray(sound).tobytes()),
        "subtitles": digest(subtitles),
        "beats": digest(entry["beats"]),
        "spans": digest(entry.get("speech", {})),
    }


def subtitle_texts(folder: Path, entry: dict) -> dict[str, dict[str, str]]:
    return {
        kind: {lang: (folder / name).read_text(encoding="utf-8") for lang, name in files.items()}
        for kind, files in entry.get("captions", {}).items()
    }


def first_subtitle_difference(ours: Path, theirs: Path, slug: str) -> str:
    """The first subtitle line that differs between two renders of `slug`, quoted."""
    texts = []
    for folder in (ours, theirs):
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        texts.append(subtitle_texts(folder, manifest["clips"][slug]["mp4"]))
    for kind, files in texts[0].items():
        for lang, text in files.items():
            other = texts[1].get(kind, {}).get(lang, "")
            for a, b in zip(text.splitlines() + [""], other.splitlines() + [""], strict=False):
                if a != b:
                    return f" (first in {lang} {kind}: {a!r} here, {b!r} clean)"
    return ""


def compare(
    world: World, inc: Path, clean: Path, slug: str, before: dict[str, str]
) -> tuple[str, dict[str, str]]:
    """What is wrong with `slug`'s incremental render against the clean one ("" if none),
    and the incremental render's fingerprint; `before`: its fingerprint before the edit."""
    ours = fingerprint(world.clips(inc), slug)
    theirs = fingerprint(world.clips(clean), slug)
    differ = [part for part in ours if ours[part] != theirs[part]]
    if differ:
        where = ""
        if "subtitles" in differ:
            where = first_subtitle_difference(world.clips(inc), world.clips(clean), slug)
        return f"{', '.join(differ)} differ from a clean render{where}", ours
    if theirs != before and ours == before:
        return "the clean render changed, the incremental one did not", ours
    return "", ours


@dataclass
class Outcome:
    checked: int = 0
    held: int = 0
    failures: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # of every edit made
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [checked, held]
    by_scene: dict[str, list[int]] = field(default_factory=dict)  # slug -> [checked, held]

    def count(self, table: dict[str, list[int]], name: str, held: bool) -> None:
        tally = table.setdefault(name, [0, 0])
        tally[0] += 1
        tally[1] += held

    def tally(self) -> str:
        """How many were checked and held so far, in total, by scene and by kind of edit."""

        def each(table: dict[str, list[int]]) -> str:
            return ", ".join(f"{name} {held}/{checked}" for name, (checked, held) in table.items())

        return (
            f"{self.checked} edits checked, {self.held} held, {len(self.failures)} differed; "
            f"held/checked by scene: {each(self.by_scene)}; "
            f"by kind: {each(dict(sorted(self.by_kind.items())))}"
        )


def kinds(rng: random.Random):
    """Edit kinds in random order, every kind once before any comes again."""
    while True:
        yield from rng.sample(sorted(EDITS), len(EDITS))


def run(
    world: World,
    seed: int,
    steps: int,
    slugs: list[str],
    per_step: int = 1,
    log=print,
    start: int = 1,
) -> Outcome:
    """`steps` renders of random edits (`per_step` at a time, of different kinds) from a
    first render of the created `world`, each checked incremental against clean. With
    `start`, the edits before it are made without rendering (to replay a failure fast)."""
    rng = random.Random(seed)
    home = world.home
    inc = home / "incremental"
    outcome = Outcome()
    done: list[str] = []
    order = kinds(rng)
    before: dict[str, dict[str, str]] = {}
    for step in range(1, steps + 1):
        if step == start:
            world.write()
            render(world, inc, slugs)
            before = {s: fingerprint(world.clips(inc), s) for s in slugs}
        chosen = [next(order) for _ in range(per_step)]
        outcome.kinds += chosen
        what = " + ".join(EDITS[kind](world, rng) for kind in chosen)
        done.append(what)
        if step < start:
            continue
        world.write()
        clean = home / f"clean-{step}"
        try:
            began = time.monotonic()
            said = render(world, inc, slugs)
            middle = time.monotonic()
            render(world, clean, slugs)
            took = f" (incremental {middle - began:.1f} s, clean {time.monotonic() - middle:.1f} s)"
        except RenderFailed as exc:
            said, slugs = str(exc), []  # nothing to compare, and nothing after it
        outcome.checked += 1
        problems = [f"a render failed: {said}"] if not slugs else []
        for slug in slugs:
            problem, before[slug] = compare(world, inc, clean, slug, before[slug])
            problems += [f"{slug}: {problem}"] if problem else []
            outcome.count(outcome.by_scene, slug, not problem)
        shutil.rmtree(clean, ignore_errors=True)
        for kind in chosen:
            outcome.count(outcome.by_kind, kind, not problems)
        if problems:
            earlier = ("... " if len(done) > 4 else "") + "; ".join(done[-4:-1])
            line = (
                f"edit {step} ({what}) after [{earlier}]: {'; '.join(problems)}; "
                f"reproduce: python bench/fuzz_edits.py --seed {seed} --edits {step} "
                f"--per-step {per_step}{world.options()}"
            )
            outcome.failures.append(line)
            log(line)
            if not slugs:
                break
        else:
            outcome.held += 1
            log(f"edit {step} held{took}: {what}")
        log(f"  so far: {outcome.tally()}")
    return outcome


def enter(world_env: dict[str, str], plugins: Path, setenv: Callable[[str, str], None]) -> None:
    """Let this process and the workers it starts import the plugins and read the copies."""
    for name, value in world_env.items():
        setenv(name, value)
    if str(plugins) not in sys.path:
        sys.path.insert(0, str(plugins))
