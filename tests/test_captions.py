"""Subtitle cues: splitting, wrapping, timing, and files that real parsers read back."""

import html
import io
import os
import re

import pytest
import srt
import webvtt
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lesson import registry
from lesson.catalogue import catalogue
from lesson.say import line as caption
from lesson.text_layout import LINE_CHARS, MAX_LINES, cell_width, wrap
from pe_math import Params
from rendering.speech import captions
from rendering.speech.captions import MERGE_BELOW, MIN_CUE, READING_SPEED

ZH = (
    "把位置向量两两分组，每一对 sin 与 cos 就是一根指针的针尖；每个时钟按自己的角速度 ω 旋转。"
    "位置一格一格往前挪：最快的那根飞转，越慢的针落后得越多，右侧的向量也随之改变。"
)
EN = (
    "Split the position vector into sin–cos pairs. Each pair is the tip of a clock hand, and "
    "every clock turns at its own speed ω. A hand needs 2π/ω positions for one lap; the slow "
    "hands take so long that the whole set never repeats within a realistic sentence."
)


def _secs(stamp: str) -> float:
    """webvtt-py's *_in_seconds truncate to whole seconds; read the stamp itself."""
    h, m, s = stamp.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def _squash(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize(("lang", "text"), [("zh", ZH), ("en", EN)])
def test_cues_keep_every_word_in_order_within_two_readable_lines(lang, text):
    cues = captions.timed_cues([("a", 0.0, text)], 20.0, lang)
    assert len(cues) > 1
    assert _squash("".join(c.text for c in cues)) == _squash(text)
    for c in cues:
        assert 1 <= len(c.lines) <= MAX_LINES
        assert all(cell_width(line, lang) <= LINE_CHARS[lang] for line in c.lines), c.lines


def test_chinese_wrap_never_splits_a_latin_run_or_opens_a_line_with_punctuation():
    lines = wrap(
        "一二三四五六七八九十一二三四五 sin 与 cos，一二三四五六七八九十一二三四五六，七八", "zh"
    )
    assert all(cell_width(line, "zh") <= LINE_CHARS["zh"] for line in lines)
    words = " ".join(lines).split()
    assert "sin" in words and "cos，一二三四五六七八九十一二三四五六" not in lines
    assert not any(line[0] in "，。、；：！？" for line in lines)
    # the run of narrow characters "2π/ω" survives wrapping whole
    assert any("2π/ω" in line for line in wrap("快" * 15 + "2π/ω 个位置", "zh"))


def test_english_wrap_breaks_between_words():
    lines = wrap(EN, "en")
    assert all(len(line) <= LINE_CHARS["en"] for line in lines)
    assert " ".join(lines) == " ".join(EN.split())


def test_short_beats_borrow_time_or_merge_so_no_cue_is_much_shorter_than_a_second():
    beats = [("a", 0.0, ZH), ("b", 3.0, "短。"), ("c", 3.4, "很短。"), ("d", 5.0, "末。")]
    cues = captions.timed_cues(beats, 6.0, "zh")
    assert [c.text for c in cues][-3:] == ["短。", "很短。", "末。"]
    assert min(c.end - c.start for c in cues) >= MERGE_BELOW
    # "短。" borrowed from "很短。", which still keeps a full second
    assert cues[-3].start == 3.0 and cues[-3].end - cues[-3].start == pytest.approx(MIN_CUE)


def test_tiny_beats_that_cannot_borrow_are_merged_into_one_cue():
    cues = captions.timed_cues(
        [("a", 0.0, "One."), ("b", 0.3, "Two."), ("c", 0.6, "Three.")], 1.5, "en"
    )
    assert [(c.start, c.end, c.text) for c in cues] == [(0.0, 1.5, "One. Two. Three.")]


def test_beats_past_the_end_or_empty_are_dropped_and_times_stay_inside_the_clip():
    cues = captions.timed_cues(
        [("a", -1.0, "Start."), ("b", 4.0, "Too late."), ("c", 2.0, " ")], 3.0, "en"
    )
    assert [c.text for c in cues] == ["Start."]
    assert (cues[0].start, cues[0].end) == (0.0, 2.0)


_words = st.text(alphabet="abcdefghij", min_size=1, max_size=10)
_en_sentence = st.lists(_words, min_size=1, max_size=30).map(lambda w: " ".join(w) + ".")
_zh_sentence = st.text(alphabet="位置向量时钟指针旋转，。sinω2π", min_size=1, max_size=90)


@settings(max_examples=60, deadline=None)
@given(
    lang=st.sampled_from(["zh", "en"]),
    data=st.data(),
    gaps=st.lists(st.floats(0.05, 12.0), min_size=1, max_size=6),
    tail=st.floats(0.05, 10.0),
)
def test_cue_invariants(lang, data, gaps, tail):
    strategy = _zh_sentence if lang == "zh" else _en_sentence
    texts = [data.draw(strategy) for _ in gaps]
    starts = [sum(gaps[:i]) for i in range(len(gaps))]
    duration = starts[-1] + tail
    cues = captions.timed_cues(list(zip("abcdef", starts, texts, strict=False)), duration, lang)
    assert _squash("".join(c.text for c in cues)) == _squash("".join(t for t in texts if t.strip()))
    for c in cues:
        assert 0.0 <= c.start < c.end <= round(duration, 3) + 1e-9
        assert len(c.lines) <= MAX_LINES
        assert all(cell_width(line, lang) <= LINE_CHARS[lang] for line in c.lines)
    for a, b in zip(cues, cues[1:], strict=False):
        assert a.end <= b.start + 1e-9
    # the unspoken language's track: cues run behind their beats to be read, within limits
    timed = captions.readable(cues, duration, lang)
    flowed = captions.flowing(timed, duration, lang)
    assert [c.text for c in flowed] == [c.text for c in timed]
    for before, after in zip(timed, flowed, strict=True):
        assert before.start <= after.start <= before.start + captions.DRIFT + 1e-9
        assert before.end <= after.end <= round(duration, 3) + 1e-9  # never cut short
        assert after.start < after.end
    for a, b in zip(flowed, flowed[1:], strict=False):
        assert a.end <= b.start + 1e-9


def _intro_beats():
    return [("welcome", 0.0), ("chapters", 2.7)]


def test_sidecars_parse_with_webvtt_and_srt_and_agree(tmp_path):
    files = captions.write_sidecars(tmp_path, "lesson-intro", "lesson-intro", _intro_beats(), 7.0)
    assert files == {
        "vtt": {"zh": "lesson-intro.zh.vtt", "en": "lesson-intro.en.vtt"},
        "srt": {"zh": "lesson-intro.zh.srt", "en": "lesson-intro.en.srt"},
    }
    for lang in ("zh", "en"):
        vtt = webvtt.read(str(tmp_path / files["vtt"][lang]))
        subs = list(srt.parse((tmp_path / files["srt"][lang]).read_text(encoding="utf-8")))
        assert len(vtt) == len(subs) >= 2
        for v, s in zip(vtt, subs, strict=True):
            assert _secs(v.start) == pytest.approx(s.start.total_seconds(), abs=1e-3)
            assert _secs(v.end) == pytest.approx(s.end.total_seconds(), abs=1e-3)
            assert v.text == s.content
            assert 0 <= _secs(v.start) < _secs(v.end) <= 7.0
        words = "".join(s.content for s in subs)
        say = catalogue(lang, "lesson-intro")["say"]
        assert _squash(words) == _squash(say["welcome"] + say["chapters"])
        # the second beat's words start at its beat, or a little behind it while the
        # first beat's last words are still being read
        second = next(
            s
            for s in subs
            if _squash(caption(lang, "lesson-intro", "chapters")).startswith(_squash(s.content))
        )
        assert 2.7 - 1e-9 <= second.start.total_seconds() <= 2.7 + captions.DRIFT


def test_vtt_escapes_markup_and_the_cue_arrow():
    text = captions.to_vtt([captions.Cue(0.0, 1.5, "a <b> & c --> d")])
    body = text.split("\n")[4]  # WEBVTT, blank, cue number, timing, text
    assert "<b>" not in body and "-->" not in body
    cue = webvtt.from_buffer(io.StringIO(text))[0]
    assert cue.raw_text == "a &lt;b&gt; &amp; c &#45;&#45;&gt; d"
    assert html.unescape(cue.raw_text) == "a <b> & c --> d"  # what a player shows


def test_chapters_track_is_valid_webvtt():
    text = captions.chapters_vtt([(0.0, 7.1, "Intro"), (7.1, 20.0, "第一章 <1>")])
    cues = webvtt.from_buffer(io.StringIO(text))
    assert [(_secs(c.start), _secs(c.end), html.unescape(c.raw_text)) for c in cues] == [
        (0.0, 7.1, "Intro"),
        (7.1, 20.0, "第一章 <1>"),
    ]


def test_chapter_list_is_youtube_description_lines_with_short_chapters_folded():
    chapters = [
        (0.0, 6.2, "Positional encoding"),  # the intro card: under 10 s, folded into the next
        (6.2, 75.9, "一 打乱顺序"),
        (75.9, 3671.5, "Clock\nhands"),
        (3671.5, 3725.0, "RoPE"),
        (3725.0, 3731.0, "The end"),  # the end card: folded into the one before
    ]
    assert captions.chapter_list(chapters) == (
        "00:00 一 打乱顺序\n01:15 Clock hands\n1:01:11 RoPE\n"
    )
    assert captions.chapter_list([(0.0, 4.0, "Only")]) == "00:00 Only\n"


def test_shifted_cues_move_both_ends():
    cue = captions.Cue(1.0, 2.5, "x").shifted(10.0)
    assert (cue.start, cue.end, cue.text) == (11.0, 12.5, "x")


# ------------------------------------------------------------- on-screen lines
def _rows(text, lang, max_cells):
    from lesson.text_layout import balanced_rows, break_units, cell_width

    units = break_units(text, lang)
    widths = [cell_width(u, lang) for u in units]
    return balanced_rows(units, widths, 0.5 if lang == "zh" else 1.0, max_cells, lang)


def test_a_label_breaks_after_its_comma_not_inside_a_word():
    # greedy filling would cut 几乎 ("almost") in two
    assert _rows("整数位置一路变大，猫和狗被压得几乎分不清", "zh", 16) == [
        "整数位置一路变大，",
        "猫和狗被压得几乎分不清",
    ]


def test_a_list_stays_whole_and_the_bracket_opens_the_next_row():
    assert _rows("显示时钟 0、1、2、3（共 4 个，由快到慢）", "zh", 12) == [
        "显示时钟 0、1、2、3",
        "（共 4 个，由快到慢）",
    ]


def test_a_label_keeps_brackets_together_and_its_rows_even():
    text = "Plane of pair 0 (dims 0, 1): θ = 1 rad per position, turning counter-clockwise"
    rows = _rows(text, "en", 30)
    assert rows == [
        "Plane of pair 0 (dims 0, 1):",
        "θ = 1 rad per position,",
        "turning counter-clockwise",
    ]
    assert " ".join(rows) == text


@given(st.text(alphabet="猫狗位置，。ab (1)", min_size=1, max_size=40), st.integers(4, 20))
@example("11位)111位", 4)  # a ")" kept off a row's start costs a row too
def test_rows_are_the_fewest_that_fit_and_lose_nothing(text, limit):
    from lesson.text_layout import break_units, cell_width, join_words

    rows = _rows(text, "zh", limit)
    assert "".join(rows).replace(" ", "") == "".join(break_units(text, "zh")).replace(" ", "")
    for row in rows:
        assert cell_width(row, "zh") <= limit or len(break_units(row, "zh")) == 1
    greedy, current = 0, ""
    for unit in break_units(text, "zh"):
        joined = join_words(current, unit, "zh")
        if current and cell_width(joined, "zh") > limit:
            greedy, current = greedy + 1, unit
        else:
            current = joined
    # as few rows as filling each one up, plus at most one per closing mark kept off a
    # row's start
    closing = sum(u[0] in "，。)" for u in break_units(text, "zh"))
    assert greedy + 1 <= len(rows) + (rows == []) <= greedy + 1 + closing


def test_a_latin_run_keeps_one_space_when_joined():
    from lesson.text_layout import break_units, join_words

    joined = ""
    for unit in break_units("得分只看 n − m。", "zh"):
        joined = join_words(joined, unit, "zh")
    assert joined == "得分只看 n − m。"
    assert join_words("同 GPT-J、", "RoFormer", "zh") == "同 GPT-J、RoFormer"
    # a run that opens with a narrow sign keeps its space too; a quotation mark hugs its word
    for text in ("64 个位置 × 64 维", "值落在 −1 到 1 之间", "他说“好”"):
        joined = ""
        for unit in break_units(text, "zh"):
            joined = join_words(joined, unit, "zh")
        assert joined == text


def test_a_catalogue_mistake_names_its_file_key_and_placeholder(tmp_path, monkeypatch):
    from lesson import catalogue as catalogue_mod

    (tmp_path / "en").mkdir()
    good = tmp_path / "en" / "oops.toml"
    good.write_text('[ui]\nlap = "dim {i} laps {j} times"\nbrace = "a {0"\n', encoding="utf-8")
    broken = tmp_path / "en" / "broken.toml"
    broken.write_text('[ui]\nlap = "no end\n', encoding="utf-8")
    monkeypatch.setattr(catalogue_mod, "ROOTS", [tmp_path])
    catalogue_mod.catalogue.cache_clear()
    try:
        assert catalogue_mod.fill("en", "oops", "ui.lap", i=0, j=3) == "dim 0 laps 3 times"
        with pytest.raises(catalogue_mod.CatalogueError) as slot:
            catalogue_mod.fill("en", "oops", "ui.lap", i=0)
        assert str(slot.value) == (
            f"{good}: ui.lap has the placeholder {{j}}, which the scene does not fill "
            "(it gives i); fix the text"
        )
        with pytest.raises(catalogue_mod.CatalogueError, match="ui.brace has a broken placeholder"):
            catalogue_mod.fill("en", "oops", "ui.brace", i=0)
        with pytest.raises(catalogue_mod.CatalogueError) as toml:
            catalogue_mod.catalogue("en", "broken")
        assert str(toml.value).startswith(f"{broken} is not valid TOML at line 2, column ")
        assert str(toml.value).endswith('(texts in "quotes", one key = value per line)')
    finally:
        catalogue_mod.catalogue.cache_clear()


def test_an_edit_that_puts_back_the_old_time_and_size_is_read_again(tmp_path, monkeypatch):
    """The parsed catalogue is kept under the file's stamp; a same-size edit whose writer
    restored the modification time must still be seen (the status-change time moves)."""
    from lesson import catalogue as catalogue_mod

    (tmp_path / "en").mkdir()
    path = tmp_path / "en" / "stamped.toml"
    path.write_text('[ui]\nword = "old"\n', encoding="utf-8")
    monkeypatch.setattr(catalogue_mod, "ROOTS", [tmp_path])
    catalogue_mod.catalogue.cache_clear()
    try:
        assert catalogue_mod.lookup("en", "stamped", "ui.word") == "old"
        before = path.stat()
        path.write_text('[ui]\nword = "new"\n', encoding="utf-8")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert path.stat().st_size == before.st_size
        assert catalogue_mod.lookup("en", "stamped", "ui.word") == "new"
    finally:
        catalogue_mod.catalogue.cache_clear()


@pytest.mark.parametrize(
    "params", [Params(), Params(d_model=2, n_bits=9, base=100.0)], ids=["defaults", "changed"]
)
def test_chinese_lines_are_written_for_the_ear(params):
    # sentences as the voice speaks them, at most 50 characters besides the closing mark (a
    # space counts: the Latin name beside it takes the voice longer than one character),
    # clauses of about 30 characters at most, and one explanatory colon a line
    from lesson import say
    from lesson.text_layout import sentences

    found = []
    for info in (*registry.CARDS, *registry.MISSION):
        for key, line in say.lines(info.slug, "zh", params).items():
            where = f"zh/{info.slug}.toml: say.{key}"
            for sentence in sentences(line, "zh"):
                size = len(sentence.rstrip("。？！；"))
                clauses = [c for c in re.split(r"[，；：、。？！]", sentence) if c.strip()]
                longest = max(len(re.sub(r"\s", "", c)) for c in clauses)
                if size > 50 or longest > 30:
                    found.append(f"{where} has {size} characters ({longest} a clause): {sentence}")
            if line.count("：") > 1:
                found.append(f"{where} has {line.count('：')} colons; keep one")
    assert not found, "\n".join(found)


def test_a_cue_said_faster_than_it_is_read_stays_up_into_the_pause_after_it():
    said = [
        captions.Cue(0.0, 1.0, "x" * 20),  # read in 20/17 s: the pause has room
        captions.Cue(2.0, 2.5, "y" * 30),  # read in 1.76 s: LINGER ends it
        captions.Cue(3.5, 4.0, "z" * 17),  # the next cue ends it
        captions.Cue(4.2, 4.5, "w" * 17),  # the clip's end ends it
    ]
    kept = captions.readable(said, 4.7, "en")
    assert [c.end for c in kept] == [1.177, 2.5 + captions.LINGER, 4.2, 4.7]
    # still too short, a cue comes up early into the pause before it: at most LEAD, as
    # little as it needs, never over the cue before
    assert [c.start for c in kept] == [0.0, 2.0 - captions.LEAD, 3.5 - captions.LEAD, 4.2]
    assert [c.text for c in kept] == [c.text for c in said]
    # a cue right after one with time to spare takes some of it, up to LEAD
    pair = [captions.Cue(0.0, 2.0, "a" * 17), captions.Cue(2.0, 2.6, "b" * 17)]
    shared = captions.readable(pair, 2.6, "en")
    assert [(c.start, c.end) for c in shared] == [(0.0, 2.0 - captions.LEAD), (1.7, 2.6)]
    # a cue with no time before it holds the next one back, as far as that one can spare
    pair = [captions.Cue(0.0, 1.0, "a" * 18), captions.Cue(1.0, 3.0, "b" * 17)]
    shared = captions.readable(pair, 3.0, "en")
    assert [(c.start, c.end) for c in shared] == [(0.0, 1.059), (1.059, 3.0)]
    # ... counting the pause after it that it can stay into, and then reads in full
    three = [
        captions.Cue(0.0, 2.41, "x" * 41),
        captions.Cue(2.41, 5.28, "y" * 53),
        captions.Cue(5.6, 9.0, "z" * 20),
    ]
    chained = captions.readable(three, 9.0, "en")
    assert [(c.start, c.end) for c in chained[:2]] == [(0.0, 2.412), (2.412, 5.53)]
    # ... but not what the cue before needs to be read
    pair = [captions.Cue(0.0, 1.1, "a" * 17), captions.Cue(1.1, 1.7, "b" * 17)]
    shared = captions.readable(pair, 1.7, "en")
    assert [(c.start, c.end) for c in shared] == [(0.0, 1.0), (1.0, 1.7)]
    # a short one stays SHORTEST at least
    assert captions.readable([captions.Cue(0.0, 0.3, "ok")], 9.0, "en")[0].end == 0.834
    # read in time already (Chinese at 9 a second, its line break no character)
    assert captions.readable([captions.Cue(0.0, 1.0, "位置编码\n让模型")], 9.0, "zh")[0].end == 1.0


def test_a_beat_timed_cue_read_too_fast_runs_behind_its_beat_and_catches_up():
    dense = "Every hand turns by its own angle at each step, the fast ones by a lot."
    beats = [("a", 0.0, dense), ("b", 3.0, "Then."), ("c", 7.0, "And so on.")]
    timed = captions.readable(captions.timed_cues(beats, 10.0, "en"), 10.0, "en")
    assert max(_speed(c, "en") for c in timed) > READING_SPEED["en"]  # its beat is too short
    cues = captions.flowing(timed, 10.0, "en")
    assert max(_speed(c, "en") for c in cues) <= READING_SPEED["en"]
    assert [c.text for c in cues] == [c.text for c in timed]
    for before, after, cue in zip(timed, cues, cues[1:] + [None], strict=True):
        assert before.start <= after.start <= before.start + captions.DRIFT
        assert cue is None or after.end <= cue.start
    assert (cues[-1].start, cues[-1].end) == (timed[-1].start, timed[-1].end)  # caught up


def _speed(cue, lang: str) -> float:
    return captions.reading_length(cue.text, lang) / (cue.end - cue.start)
