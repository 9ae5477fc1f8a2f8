"""The lesson's pronunciation lexicon: `[lexicon.en]` and `[lexicon.zh]` of lesson.toml.

An entry is a word and how to say it: its phonemes between slashes, or a spelling to
read instead. English phonemes are misaki's (Kokoro's own set: "/jˈɑɹn/"); Piper gets
them as espeak-ng IPA between `[[ ]]`. Mandarin phonemes are toned pinyin ("/ya1 en1/"),
read by the Chinese front end in place of the word.
"""

from __future__ import annotations

import re

Entries = tuple[tuple[str, str], ...]
# Bounds that keep a hostile lesson.toml from making one line take minutes or gigabytes:
# the lesson's own entries are names of at most 12 characters, read in at most 24
MAX_ENTRIES = 500  # per language
MAX_WORD = 40
MAX_READING = 80

_PHONEMES = re.compile(r"/\s*(.+?)\s*/")
TONED_PINYIN = re.compile(r"[a-z]+[1-5](?: [a-z]+[1-5])*")
# misaki's one-letter diphthongs and affricates, as espeak-ng writes them
_TO_ESPEAK = (
    ("ɜɹ", "ɜː"),
    ("A", "eɪ"),
    ("I", "aɪ"),
    ("W", "aʊ"),
    ("Y", "ɔɪ"),
    ("O", "oʊ"),
    ("Q", "əʊ"),
    ("ʤ", "dʒ"),
    ("ʧ", "tʃ"),
    ("ᵊ", "ə"),
    ("T", "ɾ"),
)


def phonemes(said: str) -> str | None:
    """The phonemes of an entry written between slashes, else None (a spelling)."""
    match = _PHONEMES.fullmatch(said.strip())
    return match[1] if match else None


def problem(lang: str, word: str, said: object) -> str | None:
    """What is wrong with one entry, or None."""
    if not word.strip() or not isinstance(said, str) or not said.strip():
        return "give the word's phonemes between slashes or a spelling to read"
    if len(word) > MAX_WORD or len(said.strip()) > MAX_READING:
        return (
            f"a word is at most {MAX_WORD} characters and its reading at most {MAX_READING}; "
            "the lexicon says how to read names, not passages"
        )
    said = phonemes(said)
    if lang == "zh" and said is not None:
        if not TONED_PINYIN.fullmatch(said):
            return 'Mandarin phonemes are toned pinyin between slashes, e.g. "/a1 li3 bi3/"'
        wrong = next((syl for syl in said.split() if not _is_pinyin(syl)), None)
        if wrong:
            return f"{wrong!r} is not a pinyin syllable; write each syllable as in a dictionary"
    return None


def _is_pinyin(syllable: str) -> bool:
    """True when misaki, which turns pinyin into Kokoro's phonemes, can read `syllable`."""
    from misaki.zh import ZHG2P

    try:
        ZHG2P.py2ipa(syllable)
    except ValueError:
        return False
    return True


def _pattern(words) -> re.Pattern:
    alternatives = sorted(words, key=len, reverse=True)
    return re.compile(
        "|".join(rf"(?<![\w-]){re.escape(w)}(?![\w-])" for w in alternatives), re.UNICODE
    )


def _replaced(text: str, lexicon: Entries, say) -> str:
    table = {word: said for word, said in lexicon if say(said) is not None}
    if not table:
        return text
    return _pattern(table).sub(lambda m: say(table[m.group()]), text)


def respelled(text: str, lexicon: Entries) -> str:
    """`text` with every word the lexicon spells replaced by its spelling."""
    return _replaced(text, lexicon, lambda said: None if phonemes(said) else said)


def spoken_phonemes(lexicon: Entries) -> dict[str, str]:
    """The entries given as phonemes: word -> phonemes."""
    return {word: phonemes(said) for word, said in lexicon if phonemes(said)}


def espeak_ipa(misaki: str) -> str:
    for theirs, ours in _TO_ESPEAK:
        misaki = misaki.replace(theirs, ours)
    return misaki


def piper_text(text: str, lexicon: Entries) -> str:
    """`text` for Piper: phoneme entries inline as `[[ ipa ]]`, spellings as words."""

    def say(said: str) -> str:
        ipa = phonemes(said)
        return f"[[ {espeak_ipa(ipa)} ]]" if ipa else said

    return _replaced(text, lexicon, say)


def zh_readings(lexicon: Entries) -> dict[str, str]:
    """The entries as the Chinese front end takes them: word -> toned pinyin or a spelling."""
    return {word: phonemes(said) or said for word, said in lexicon}
