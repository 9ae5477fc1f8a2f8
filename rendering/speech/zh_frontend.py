"""The Chinese front end: a line as a Mandarin teacher would read it aloud.

Han text goes to pypinyin, with the lesson's polyphones fixed by phrase and the tone
sandhi of 一, 不 and third tones applied here. Everything else on the line is read too:
Latin letters by the names Mandarin speakers give them (GPT, RoPE, q, k), a few words
by their usual Chinese reading (sin, cos, BERT), Greek letters by their Chinese names,
numbers, decimals, negatives, fractions, powers and ranges as Chinese numbers, and the
math symbols the lesson uses. Punctuation becomes a pause; a character that is neither
spoken nor deliberate punctuation is reported by `unspoken()`, never silently lost.

`syllables()` gives toned pinyin (tone 5 = neutral) with pause marks, `clauses()` the
syllables between pauses, `phones()` a clause's Databaker phones (what FastSpeech2 reads), `pinyin_line()` the tone-number
text espeak-ng's `cmn-latn-pinyin` voice reads, and `toneless()` what the speech
recogniser's transcript is compared with.
"""

from __future__ import annotations

import importlib.metadata
import re
from functools import cache

PAUSE = "|"  # a pause mark among the syllables (comma, colon, a sentence's end)
# Syllables said in one breath at most: the lesson's longest clause has 23, and the
# neural voice fails past 25 s of sound: about 140 syllables, 70 at half speed, and
# 40 of its slowest (双) take 20 s at half speed.
MAX_CLAUSE = 32

LETTERS = {
    "A": "ei1",
    "B": "bi4",
    "C": "xi1",
    "D": "di4",
    "E": "yi4",
    "F": "ai2 fu5",
    "G": "ji4",
    "H": "ai1 qi1",
    "I": "ai4",
    "J": "jie4",
    "K": "kei4",
    "L": "ai2 lu5",
    "M": "ai2 mu5",
    "N": "en1",
    "O": "ou1",
    "P": "pi4",
    "Q": "qiu1",
    "R": "a4 er5",
    "S": "ai2 si1",
    "T": "ti4",
    "U": "you1",
    "V": "wei1",
    "W": "da2 bu5 liu5",
    "X": "ai2 ke4 si1",
    "Y": "wai1",
    "Z": "zei4",
}
# Words read as Chinese readers say them, not letter by letter (matched case-sensitively
# first, then in lower case).
WORDS = {
    "sin": "正弦",
    "cos": "余弦",
    "tan": "正切",
    "softmax": "柔性最大值",
    "Transformer": "变换器",
    "BERT": "伯特",
    "BLOOM": "布鲁姆",
    "ALiBi": "阿里比",
    "Llama": "拉玛",
    "DeepSeek": "深度求索",
    "max": "最大值",
    "min": "最小值",
    "log": "对数",
}
GREEK = {
    "α": "阿尔法",
    "β": "贝塔",
    "γ": "伽马",
    "δ": "德尔塔",
    "Δ": "德尔塔",
    "ε": "艾普西龙",
    "θ": "西塔",
    "λ": "兰姆达",
    "μ": "缪",
    "π": "派",
    "σ": "西格玛",
    "Σ": "西格玛",
    "φ": "斐",
    "ω": "欧米伽",
}
SYMBOLS = {
    "+": "加",
    "×": "乘",
    "*": "乘",
    "·": "乘",
    "=": "等于",
    "≈": "约等于",
    "≤": "小于等于",
    "≥": "大于等于",
    "<": "小于",
    ">": "大于",
    "≠": "不等于",
    "→": "到",
    "±": "正负",
    "√": "根号",
    "∞": "无穷",
    "°": "度",
    "∑": "求和",
}
PAUSES = set("，。、；：！？,;:!?…")
SILENT = set("“”‘’\"'《》「」『』（）()[]{}_—") | {" ", "\u3000"}
SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
MEASURE = set("个根组张条种位只块列行层次倍步份")  # 2 before these reads 两
DIGITS = "零一二三四五六七八九"
# A chunk of one character read on its own ("q 转 m": rotate).
ALONE = {"转": "zhuan4", "行": "hang2"}
# Readings pypinyin gets wrong in the lesson's sentences, fixed by phrase.
PHRASES = {
    "一行": "yi1 hang2",
    "每行": "mei3 hang2",
    "行向量": "hang2 xiang4 liang4",
    "第一行": "di4 yi1 hang2",
    "这一行": "zhe4 yi1 hang2",
    "那一行": "na4 yi1 hang2",
    "行和列": "hang2 he2 lie4",
    "行与列": "hang2 yu3 lie4",
    "逐行": "zhu2 hang2",
    "行数": "hang2 shu4",
    "第零行": "di4 ling2 hang2",
    "哪一行": "na3 yi1 hang2",
    "一行一行地": "yi1 hang2 yi1 hang2 de5",
    "慢慢地": "man4 man4 de5",
    "一格一格地": "yi1 ge2 yi1 ge2 de5",
    "飞快地": "fei1 kuai4 de5",
    "稳稳地": "wen3 wen3 de5",
    "不断地": "bu2 duan4 de5",
    "重新": "chong2 xin1",
    "重复": "chong2 fu4",
    "重叠": "chong2 die2",
    "重合": "chong2 he2",
    "重要": "zhong4 yao4",
    "权重": "quan2 zhong4",
    "长度": "chang2 du4",
    "转一圈": "zhuan4 yi1 quan1",
    "转速": "zhuan4 su4",
    "转过": "zhuan4 guo4",
    "转动": "zhuan4 dong4",
    "旋转": "xuan2 zhuan3",
    "转完": "zhuan4 wan2",
    "转满": "zhuan4 man3",
    "飞转": "fei1 zhuan4",
    "转了": "zhuan4 le5",
    "转到": "zhuan4 dao4",
    "转回": "zhuan4 hui2",
    "位置差": "wei4 zhi4 cha1",
    "数一数": "shu3 yi1 shu3",
    "得到": "de2 dao4",
    "还是": "hai2 shi5",
    "还有": "hai2 you3",
    "差不多": "cha4 bu5 duo1",
    "相差": "xiang1 cha4",
    "差别": "cha1 bie2",
    "为了": "wei4 le5",
    "因为": "yin1 wei4",
    "成为": "cheng2 wei2",
    "称为": "cheng1 wei2",
    "作为": "zuo4 wei2",
    "记作": "ji4 zuo4",
    "看作": "kan4 zuo4",
    "只有": "zhi3 you3",
    "只要": "zhi3 yao4",
    "调换": "diao4 huan4",
    "长得": "zhang3 de5",
    "欧米伽": "ou1 mi3 jia1",
    "出的行": "chu1 de5 hang2",
    "是行对调": "shi4 hang2 dui4 diao4",
    "看都": "kan4 dou1",
    "对得上": "dui4 de5 shang4",
    "落后得": "luo4 hou4 de5",
    "差得": "cha4 de5",
    "跳得": "tiao4 de5",
    "都得训练": "dou1 dei3 xun4 lian4",
    "滑得多": "hua2 de5 duo1",
    "步长": "bu4 chang2",
    "长文": "chang2 wen2",
    "一样长": "yi1 yang4 chang2",
    "都转了": "dou1 zhuan4 le5",
    "在转": "zai4 zhuan4",
    "针转的": "zhen1 zhuan4 de5",
    "边转": "bian1 zhuan4",
    "无处": "wu2 chu4",
    "量一量": "liang2 yi1 liang2",
    "调转速": "tiao2 zhuan4 su4",
    "重算": "chong2 suan4",
    "为零": "wei2 ling2",
    "约为": "yue1 wei2",
    "度为一": "du4 wei2 yi1",
    "滑地": "hua2 de5",
    "对地直": "dui4 de5 zhi2",
    "奇次": "ji1 ci4",
}


class FrontEndError(ValueError):
    """A line the front end cannot read."""


@cache
def dictionary() -> str:
    """The readings the front end draws on besides its own code (which cache keys trace)."""
    return f"pypinyin {importlib.metadata.version('pypinyin')}"


# ------------------------------------------------------------------ numbers
def _below_10000(n: int, leading: bool) -> str:
    out, zero = "", False
    for unit, value in (("千", 1000), ("百", 100), ("十", 10), ("", 1)):
        d, n = divmod(n, value)
        if d:
            if zero:
                out += "零"
            if not (unit == "十" and d == 1 and not out and leading):
                out += DIGITS[d]
            out += unit
            zero = False
        elif out:
            zero = True
    return out


def integer(n: int) -> str:
    """An integer in Chinese: 1024 → 一千零二十四, 47117 → 四万七千一百一十七."""
    if n == 0:
        return "零"
    groups = []
    while n:
        n, g = divmod(n, 10000)
        groups.append(g)
    out = ""
    for i in range(len(groups) - 1, -1, -1):
        g = groups[i]
        if not g:
            continue
        if out and g < 1000:
            out += "零"
        out += _below_10000(g, leading=not out) + ("", "万", "亿", "万亿")[i]
    return out


def number(text: str) -> str:
    """A decimal numeral in Chinese: 0.964 → 零点九六四."""
    whole, _, frac = text.replace(",", "").partition(".")
    if len(whole) > 16:
        return "".join(DIGITS[int(c)] for c in text if c.isdigit())
    out = integer(int(whole))
    if frac:
        out += "点" + "".join(DIGITS[int(c)] for c in frac)
    return out


# ------------------------------------------------------------------ reading
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
TOKEN = re.compile(
    rf"(?P<num>{NUMBER})|(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)|(?P<latin>[A-Za-z]+)"
    r"|(?P<han>[\u3400-\u9fff\uf900-\ufaff]+)|(?P<other>.)",
    re.S,
)


def _tokens(text: str) -> list[tuple[str, str]]:
    return [(m.lastgroup, m.group()) for m in TOKEN.finditer(text)]


def _next_solid(tokens, i: int):
    """The token after i, skipping spaces."""
    for kind, value in tokens[i + 1 :]:
        if not value.isspace():
            return kind, value
    return None, ""


def _prev_solid(tokens, i: int):
    for kind, value in reversed(tokens[:i]):
        if not value.isspace():
            return kind, value
    return None, ""


def reading(
    text: str, lexicon: dict[str, str] | None = None
) -> tuple[list[tuple[str, str]], list[str]]:
    """The line as units to say, and the characters nothing reads.

    A unit is ("han", Chinese text), ("num", a number in Chinese; "count" before a
    measure word), ("syl", toned pinyin syllables) or ("pause", "").
    A word of `lexicon` is read as its entry: toned pinyin, or a spelling to read.
    """
    if lexicon:
        return _reading_with(text, lexicon)
    tokens = _tokens(text)
    units: list[tuple[str, str]] = []
    lost: list[str] = []
    skip = set()

    def han(s: str) -> None:
        units.append(("han", s))

    for i, (kind, value) in enumerate(tokens):
        if i in skip:
            continue
        prev_kind, prev = _prev_solid(tokens, i)
        next_kind, nxt = _next_solid(tokens, i)
        if kind == "num":
            _read_number(tokens, i, next_kind, nxt, units, skip)
        elif kind == "sup":
            han("的")
            plain = value.translate(SUPERSCRIPT)
            if plain.startswith("-"):
                han("负")
            units.append(("num", number(plain.lstrip("-") or "0")))
            han("次方")
        elif kind == "latin":
            word = WORDS.get(value) or WORDS.get(value.lower())
            if word:
                han(word)
            else:
                units.append(("syl", " ".join(LETTERS[c.upper()] for c in value)))
        elif kind == "han":
            han(value)
        elif value in GREEK:
            han(GREEK[value])
        elif value in ("-", "−", "–"):
            _read_dash(tokens, i, prev_kind, prev, next_kind, units)
        elif value == "/":
            han("除以")
        elif value == "^":
            han("的")
            j = _index_after(tokens, i, None)
            units.extend(_exponent(tokens, j, skip))
            han("次方")
        elif value in ("~", "～"):
            han("到" if prev_kind == "num" and next_kind == "num" else "约")
        elif value == "%":
            continue  # read before its number
        elif value in SYMBOLS:
            han(SYMBOLS[value])
        elif value in PAUSES or value == ".":
            units.append(("pause", ""))
        elif value in SILENT or value.isspace():
            continue
        else:
            lost.append(value)
    return units, lost


def _read_number(tokens, i: int, next_kind, nxt: str, units: list, skip: set) -> None:
    """Token i, a number, read into `units` with what follows it: a percentage, a fraction
    (whose tokens go into `skip`), 两 or a counted number before a measure word, a year."""
    value = tokens[i][1]
    if nxt == "%":
        units.append(("han", "百分之"))
    if nxt == "/" and _fraction_at(tokens, i):
        j = _index_after(tokens, i, "/")
        units.append(("han", number(tokens[j][1]) + "分之" + number(value)))
        skip.update(range(i + 1, j + 1))
        return
    if value == "2" and next_kind == "han" and nxt[0] in MEASURE:
        units.append(("han", "两"))
    elif len(value) == 4 and next_kind == "han" and nxt[0] == "年":
        units.append(("num", "".join(DIGITS[int(c)] for c in value)))
    else:  # before a measure word 1 reads like 一 in 一个, with its tone change
        counted = next_kind == "han" and nxt[0] in MEASURE
        units.append(("count" if counted else "num", number(value)))


def _read_dash(tokens, i: int, prev_kind, prev: str, next_kind, units: list) -> None:
    """Token i, a dash, read into `units` as 到 (a range), 负 (a sign) or 减, or not at all
    (a name's hyphen)."""
    value = tokens[i][1]
    if value == "-" and prev_kind == "latin" and tokens[i - 1][0] != "other":
        return  # a name's hyphen: GPT-2, GPT-J
    if value == "–" and prev_kind == "num" and next_kind == "num":
        units.append(("han", "到"))
    elif next_kind == "num" and (prev_kind in (None, "han") or prev in PAUSES | SILENT):
        units.append(("han", "负"))
    elif next_kind == "num" and prev in SYMBOLS:
        units.append(("han", "负"))
    else:
        units.append(("han", "减"))


TONED_PINYIN = re.compile(r"[a-z]+[1-5](?: [a-z]+[1-5])*")


def _reading_with(text: str, lexicon: dict[str, str]) -> tuple[list[tuple[str, str]], list[str]]:
    words = sorted(lexicon, key=len, reverse=True)
    pattern = "|".join(rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])" for w in words)
    units: list[tuple[str, str]] = []
    lost: list[str] = []
    start = 0
    for m in re.finditer(pattern, text):
        said = lexicon[m.group()]
        for part, kind in ((text[start : m.start()], "text"), (said, "entry")):
            if kind == "entry" and TONED_PINYIN.fullmatch(said):
                units.append(("syl", said))
                continue
            more, missed = reading(part)
            units += more
            lost += missed
        start = m.end()
    more, missed = reading(text[start:])
    return units + more, lost + missed


def _index_after(tokens, i: int, value: str | None) -> int:
    """The index of the first solid token after i (after `value`, when given)."""
    j = i + 1
    while j < len(tokens) and tokens[j][1].isspace():
        j += 1
    if value is not None and j < len(tokens) and tokens[j][1] == value:
        j += 1
        while j < len(tokens) and tokens[j][1].isspace():
            j += 1
    return j


def _fraction_at(tokens, i: int) -> bool:
    j = _index_after(tokens, i, "/")
    return j < len(tokens) and tokens[j][0] == "num" and "." not in tokens[i][1]


def _exponent(tokens, j: int, skip: set) -> list[tuple[str, str]]:
    """The units of an exponent after ^: a number, a letter, or a bracketed group."""
    if j >= len(tokens):
        return []
    kind, value = tokens[j]
    if value == "(":
        depth, k = 0, j
        while k < len(tokens):
            depth += {"(": 1, ")": -1}.get(tokens[k][1], 0)
            if depth == 0:
                break
            k += 1
        inner = "".join(v for _, v in tokens[j + 1 : k])
        skip.update(range(j, k + 1))
        units, _ = reading(inner)
        return units
    skip.add(j)
    if kind == "other" and value in ("-", "−") and j + 1 < len(tokens):
        return [("han", "负"), *_exponent(tokens, j + 1, skip)]
    units, _ = reading(value)
    return units


# ------------------------------------------------------------------ pinyin
@cache
def _pinyin():
    from pypinyin import Style, lazy_pinyin

    def convert(han: str) -> list[str]:
        out = lazy_pinyin(han, style=Style.TONE3, neutral_tone_with_five=True)
        return out if len(out) == len(han) else [_one(c) for c in han]

    def _one(c: str) -> str:
        return lazy_pinyin(c, style=Style.TONE3, neutral_tone_with_five=True)[0]

    return convert


def _han_syllables(han: str, after_number: bool = False) -> list[str]:
    if han in ALONE:
        return [ALONE[han]]
    syllables = _pinyin()(han)
    if after_number and han[0] == "行":  # 1024 行: rows
        syllables[0] = "hang2"
    for phrase, fixed in PHRASES.items():
        start = han.find(phrase)
        while start >= 0:
            syllables[start : start + len(phrase)] = fixed.split()
            start = han.find(phrase, start + 1)
    return syllables


def _sandhi(chars: list[str], syls: list[str]) -> list[str]:
    """一 and 不 before other tones, and a third tone before a third tone."""
    out = list(syls)
    numeric = set(DIGITS) | set("十百千万亿第点")
    for i, (c, s) in enumerate(zip(chars, syls, strict=True)):
        nxt = syls[i + 1] if i + 1 < len(syls) else None
        nxt_char = chars[i + 1] if i + 1 < len(chars) else ""
        if nxt is None or nxt == PAUSE:
            continue
        if c == "不" and s == "bu4" and nxt[-1] == "4":
            out[i] = "bu2"
        elif c == "一" and s == "yi1":
            before = chars[i - 1] if i else ""
            if before in numeric or (nxt_char in numeric and nxt_char not in "百千万亿"):
                continue
            out[i] = "yi2" if nxt[-1] == "4" else "yi4"
    for i in range(len(out) - 2, -1, -1):
        if out[i].endswith("3") and out[i + 1].endswith("3") and out[i + 1] != PAUSE:
            out[i] = out[i][:-1] + "2"
    return out


def syllables(text: str, lexicon: dict[str, str] | None = None) -> list[str]:
    """The line as toned pinyin syllables (tone 5 = neutral), with PAUSE marks."""
    units, _ = reading(text, lexicon)
    chars: list[str] = []
    syls: list[str] = []
    previous = ""
    for kind, value in units:
        if kind in ("han", "num", "count"):
            chars += _number_chars(value) if kind == "num" else list(value)
            syls += _han_syllables(value, previous in ("num", "count"))
            previous = kind
            continue
        previous = kind
        if kind == "syl":
            parts = value.split()
            chars += ["a"] * len(parts)  # letters take no sandhi of 一 or 不
            syls += parts
        elif syls and syls[-1] != PAUSE:
            chars.append(PAUSE)
            syls.append(PAUSE)
    while syls and syls[-1] == PAUSE:
        syls.pop()
        chars.pop()
    return _sandhi(chars, syls)


def _number_chars(number: str) -> list[str]:
    """A number's characters for the sandhi: 一 changes tone only before 百, 千, 万, 亿."""
    return [
        c if c != "一" or number[i + 1 : i + 2] in ("百", "千", "万", "亿") else "1"
        for i, c in enumerate(number)
    ]


def unspoken(text: str) -> list[str]:
    """Characters of the line that nothing reads (neither spoken nor punctuation)."""
    return reading(text)[1]


def clauses(text: str) -> list[list[str]]:
    """The line's syllables cut at its pauses: the stretches a voice says in one breath.
    A stretch of more than MAX_CLAUSE syllables (a long run of digits or letters) is cut
    into equal parts."""
    out: list[list[str]] = [[]]
    for syl in syllables(text):
        if syl == PAUSE:
            out.append([])
        else:
            out[-1].append(syl)
    bounded = []
    for clause in filter(None, out):
        count = -(-len(clause) // MAX_CLAUSE)
        size = -(-len(clause) // count)
        bounded += [clause[i : i + size] for i in range(0, len(clause), size)]
    return bounded


def phones(syls: list[str], pinyin_dict: dict[str, list[str]]) -> list[str]:
    """The Databaker phone sequence of one clause: sil, initial + toned final, #0 between."""
    out = ["sil"]
    for syl in syls:
        base, tone = syl[:-1], syl[-1]
        base = {"n": "en", "m": "mu", "ng": "en", "hm": "hen"}.get(base, base)
        if base not in pinyin_dict:
            if base.endswith("r") and base[:-1] in pinyin_dict:  # erhua: 点儿 → dian + er
                initial, final = pinyin_dict[base[:-1]]
                out += [initial, final + tone, "er5", "#0"]
                continue
            raise FrontEndError(f"no phones for the syllable {syl!r}")
        initial, final = pinyin_dict[base]
        out += [initial, final + tone, "#0"]
    if out[-1] == "#0":
        out.pop()
    out.append("sil")
    return out


def pinyin_line(text: str) -> str:
    """Tone-number pinyin for espeak-ng's cmn-latn-pinyin voice, commas for pauses."""
    words = [", " if s == PAUSE else s for s in syllables(text)]
    return " ".join(words).replace(" ,  ", ", ").strip(" ,")


def toneless(text: str) -> list[str]:
    """The line as toneless pinyin syllables, for comparing a transcript with it."""
    return [s[:-1] for s in toned(text)]


def toned(text: str) -> list[str]:
    """The line as toned pinyin syllables (after sandhi), for comparing a transcript with it:
    a recogniser that hears another tone tends to write that tone's character."""
    return [s for s in syllables(text) if s != PAUSE]
