"""The Chinese front end: every character of every zh line is read, and read right."""

from __future__ import annotations

import json

import pytest

from lesson.catalogue import COMMON, GLOSSARY, shipped
from rendering.speech import narration, zh_frontend
from rendering.speech.engines import fastspeech2

CAPTIONS = shipped("zh")


def zh_lines() -> list[tuple[str, str, str]]:
    return [
        (slug, key, text)
        for slug in sorted(CAPTIONS)
        if slug != GLOSSARY
        for key, text in narration.beat_lines(slug, "zh").items()
    ]


@pytest.fixture(scope="module")
def pinyin_dict() -> dict:
    path = fastspeech2.asset(fastspeech2.MAPPER)
    return json.loads(path.read_text(encoding="utf-8"))["pinyin_dict"]


def test_every_zh_line_of_every_scene_and_card_is_read_to_the_last_character(pinyin_dict):
    lines = zh_lines()
    # common has no [say]; the glossary is no scene's words
    narrated = [slug for slug in CAPTIONS if slug not in (COMMON, GLOSSARY)]
    assert len({scene for scene, _, _ in lines}) == len(narrated)
    for scene, key, text in lines:
        assert zh_frontend.unspoken(text) == [], (scene, key)
        han = sum("\u4e00" <= c <= "\u9fff" for c in text)
        syllables = [s for s in zh_frontend.syllables(text) if s != zh_frontend.PAUSE]
        assert len(syllables) >= han, (scene, key)  # no Han character lost either
        for clause in zh_frontend.clauses(text):
            phones = zh_frontend.phones(clause, pinyin_dict)
            assert phones[0] == phones[-1] == "sil"


def test_a_character_nothing_reads_is_reported_not_dropped():
    assert zh_frontend.unspoken("位置 ☃ 和 ♞") == ["☃", "♞"]
    assert zh_frontend.unspoken("“猫”（cat）、狗：PE(p)。") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # letters by their Mandarin names; a name's hyphen is silent
        ("GPT-2", "ji4 pi4 ti4 er4"),
        ("RoPE", "a4 er5 ou1 pi4 yi4"),
        ("q·k", "qiu1 cheng2 kei4"),
        ("T5", "ti4 wu3"),
        # Greek by its Chinese names
        ("θ 和 ω", "xi1 ta3 he2 ou1 mi3 jia1"),
        # decimals, negatives, powers, fractions, ranges, percentages
        ("0.964", "ling2 dian2 jiu3 liu4 si4"),
        ("-0.5", "fu4 ling2 dian2 wu3"),
        ("10^4", "shi2 de5 si4 ci4 fang1"),
        ("10⁴", "shi2 de5 si4 ci4 fang1"),
        ("2^k", "er4 de5 kei4 ci4 fang1"),
        ("1/2", "er4 fen1 zhi1 yi1"),
        ("4/π", "si4 chu2 yi3 pai4"),
        ("0–63", "ling2 dao4 liu4 shi2 san1"),
        ("50%", "bai3 fen1 zhi1 wu3 shi2"),
        ("47,117", "si4 wan4 qi1 qian1 yi4 bai3 yi1 shi2 qi1"),
        ("n − m", "en1 jian3 ai2 mu5"),
        ("x ≈ 1 ≤ 2 → 3", "ai2 ke4 si1 yue1 deng3 yu2 yi1 xiao3 yu2 deng3 yu2 er4 dao4 san1"),
        # 2 before a measure word is 两; 1 before one takes 一's tone change
        ("2 个词", "liang3 ge4 ci2"),
        ("1 个", "yi2 ge4"),
        ("第 1 位", "di4 yi1 wei4"),
        ("2021 年", "er4 ling2 er4 yi1 nian2"),
        # polyphones by phrase
        ("一行", "yi4 hang2"),
        ("银行", "yin2 hang2"),
        ("GPT-2 有 1024 行", "ji4 pi4 ti4 er4 you3 yi4 qian1 ling2 er4 shi2 si4 hang2"),
        ("重新", "chong2 xin1"),
        ("重要", "zhong4 yao4"),
        ("再调转速", "zai4 tiao2 zhuan4 su4"),
        ("q 转 m", "qiu1 zhuan4 ai2 mu5"),
        ("确实转了", "que4 shi2 zhuan4 le5"),
        ("转回原处", "zhuan4 hui2 yuan2 chu4"),
        ("位置差 k", "wei4 zhi4 cha1 kei4"),
        # tone sandhi
        ("不对", "bu2 dui4"),
        ("一样", "yi2 yang4"),
        ("一张", "yi4 zhang1"),
        ("所有", "suo2 you3"),
        ("第一", "di4 yi1"),
        ("一千", "yi4 qian1"),
    ],
)
def test_tricky_readings(text, expected):
    assert " ".join(zh_frontend.syllables(text)) == expected


def test_phones_for_a_line_with_letters_greek_and_a_pause(pinyin_dict):
    (first, second) = zh_frontend.clauses("转过 θ，PE 变")
    assert zh_frontend.phones(first, pinyin_dict) == (
        "sil zh uan4 #0 g uo4 #0 x i1 #0 t a3 sil".split()
    )
    assert zh_frontend.phones(second, pinyin_dict) == ("sil p i4 #0 ^ i4 #0 b ian4 sil".split())


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (0, "零"),
        (10, "十"),
        (11, "十一"),
        (101, "一百零一"),
        (110, "一百一十"),
        (1010, "一千零一十"),
        (1024, "一千零二十四"),
        (10001, "一万零一"),
        (47117, "四万七千一百一十七"),
        (786432, "七十八万六千四百三十二"),
        (100010000, "一亿零一万"),
    ],
)
def test_integers_read_as_chinese_numbers(n, words):
    assert zh_frontend.integer(n) == words


def test_pinyin_for_espeak_has_tone_numbers_and_pauses():
    line = zh_frontend.pinyin_line("把猫和狗交换，位置 2 个。")
    assert line == "ba3 mao1 he2 gou3 jiao1 huan4, wei4 zhi4 liang3 ge4"
