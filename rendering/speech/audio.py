"""Sound: decode, trim, measure and normalise speech, and put it beside a clip's video.

Everything works on mono float32 samples at RATE. Loudness follows EBU R128: the
integrated loudness (ITU-R BS.1770, measured by pyloudnorm) is brought to
TARGET_LUFS, and a look-ahead limiter keeps the true peak (4× oversampled) under
PEAK_DBTP, so a loud consonant can never clip. The video packets are copied as
they are; only the audio is encoded (AAC in mp4, Opus in webm).
"""

from __future__ import annotations

import math
import os
import stat
import struct
import wave
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from rendering.core import formats
from rendering.core.files import atomic_write

RATE = 48000
TARGET_LUFS = -16.0
PEAK_DBTP = -1.0
# The limiter aims this far under the ceiling, since AAC overshoots at sharp onsets: at
# 0.3 dB the 720p clock-hands clip needed three encodes (14 s), at 1.0 dB one (5 s),
# and its true peak still ends at -1.15 dBTP
_PEAK_MARGIN_DB = 1.0
ENCODE_TRIES = 5  # encodes of a clip's sound before its peaks count as a failure
_RETRY_MARGIN_DB = 0.5  # where the codec overshot, the first re-encode aims this far under
AAC_FRAME = 1024  # samples per AAC frame (Opus frames of 960 divide evenly into 48 kHz too)
# A sound this close to the target is left as it is (a listener hears about 1 LU): a clip's
# track, made of beats each normalised, would otherwise be turned up a little and limited
_LEVEL_TOLERANCE_LU = 0.3
SILENCE_DB = -50.0  # a window quieter than this (dBFS) holds no speech
FULL_SCALE = 0.999  # a sample this loud is at the converter's limit: it clipped
CUT_SHORT = 0.1  # seconds of sound a file may lack against its header (codec padding)


class AudioError(RuntimeError):
    """A sound file that cannot be read; the message names it, `reason` says what is wrong
    (without the advice, which suits a recording)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


@dataclass(frozen=True)
class Take:
    """A decoded file: its sound as mono at RATE, and how much of it clipped."""

    samples: np.ndarray  # the mean of the channels: never louder than the loudest of them
    clipped: float  # share of instants at which some channel is at full scale


# ------------------------------------------------------------------ files
def decode(path: Path, max_seconds: float | None = None, whole: bool = False) -> np.ndarray:
    """Any audio file PyAV reads (wav, flac, mp3, m4a, ogg, a video's sound) as mono at RATE."""
    return decode_take(path, max_seconds, whole).samples


def decode_take(path: Path, max_seconds: float | None = None, whole: bool = False) -> Take:
    """`path` decoded: mono at RATE, and the share of it at full scale in any channel.

    With `max_seconds`, a file whose header says it is longer is refused before a sample
    is decoded, and the decode stops as soon as it passes the bound (a header can lie).
    With `whole`, a file holding less sound than its header says (cut short) is refused.
    """
    resampler = av.AudioResampler(format="fltp", rate=RATE)  # every channel, as it is
    parts: list[np.ndarray] = []
    samples = clipped = 0
    limit = math.inf if max_seconds is None else max_seconds * RATE
    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                raise AudioError(f"{path} has no sound in it; record it again", "has no sound")
            said = header_seconds(container)
            if max_seconds is not None and said is not None and said > max_seconds:
                raise AudioError(_too_long(path, said, max_seconds))
            for frame in _resampled(container.decode(audio=0), resampler):
                channels = frame.to_ndarray()
                mono = channels[0] if len(channels) == 1 else channels.mean(axis=0)
                peaks = np.abs(mono) if len(channels) == 1 else np.abs(channels).max(axis=0)
                clipped += int(np.count_nonzero(peaks >= FULL_SCALE))
                parts.append(mono)
                samples += len(parts[-1])
                if samples > limit:
                    raise AudioError(_too_long(path, None, max_seconds))
    except (av.FFmpegError, OSError, ValueError) as exc:
        detail = getattr(exc, "strerror", None) or str(exc).strip() or type(exc).__name__
        raise AudioError(
            f"{path} cannot be decoded ({detail}); save it again as wav, flac, mp3, m4a or ogg",
            f"cannot be decoded ({detail})",
        ) from None
    if whole and said is not None and samples < (said - CUT_SHORT) * RATE:
        reason = f"is cut short: {samples / RATE:.1f} s of sound where its header says {said:.1f} s"
        raise AudioError(f"{path} {reason}; save it again", reason)
    mono = np.concatenate(parts).astype(np.float32) if parts else np.zeros(0, np.float32)
    return Take(mono, clipped / samples if samples else 0.0)


def _resampled(frames: Iterator, resampler) -> Iterator:
    for frame in frames:
        yield from resampler.resample(frame)
    yield from resampler.resample(None)


def header_seconds(container) -> float | None:
    """How long a file says it is, from its container header (None when it does not say)."""
    stream = container.streams.audio[0]
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / av.time_base
    return None


def _clock(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def refuse_long(path: Path, max_seconds: float) -> None:
    """An AudioError when the file's header says it lasts longer than `max_seconds`."""
    try:
        with av.open(str(path)) as container:
            said = header_seconds(container) if container.streams.audio else None
    except (av.FFmpegError, OSError, ValueError):
        return  # decode() says what is wrong with it
    if said is not None and said > max_seconds:
        raise AudioError(_too_long(path, said, max_seconds))


def _too_long(path: Path, seconds: float | None, limit: float) -> str:
    length = f"is {_clock(seconds)} long" if seconds is not None else f"runs past {_clock(limit)}"
    return (
        f"{path} {length}; a take may last {_clock(limit)} at most: "
        "trim it to the beat's line, or record the beat again"
    )


def from_rate(samples: np.ndarray, rate: int) -> np.ndarray:
    """Resample mono float samples from `rate` to RATE."""
    return resample(samples, rate, RATE)


def resample(samples: np.ndarray, rate: int, to: int) -> np.ndarray:
    """Resample mono float samples from `rate` to `to`."""
    samples = np.asarray(samples, dtype=np.float32).reshape(-1)
    if rate == to:
        return samples
    g = math.gcd(to, rate)
    from scipy.signal import resample_poly  # scipy.signal takes most of a second to import

    return resample_poly(samples, to // g, rate // g).astype(np.float32)


def write_wav(path: Path, samples: np.ndarray) -> None:
    """16-bit mono WAV at RATE, written beside `path` and renamed into place."""
    pcm = (np.clip(samples, -1.0, 1.0) * 32767.0).round().astype("<i2")

    def write(fh) -> None:
        with wave.open(fh, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(RATE)
            w.writeframes(pcm.tobytes())

    atomic_write(path, write)  # a crash must leave the whole take or none (read_take)


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as w:
        data = w.readframes(w.getnframes())
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32767.0


WAV_HEADER = 44  # bytes before the samples in a file write_wav wrote


def take_seconds(path: Path) -> float | None:
    """The length of the take at `path` when it is whole as write_wav wrote it, else None:
    missing, not a plain file (a FIFO would block a read), not our format, or its size
    not what its header says (cut short by a crash or a full disk)."""
    try:
        found = os.stat(path)
        size = found.st_size
        if not stat.S_ISREG(found.st_mode) or size < WAV_HEADER:
            return None
        with wave.open(str(path), "rb") as w:
            shape = (w.getnchannels(), w.getsampwidth(), w.getframerate())
            frames = w.getnframes()
    except (OSError, EOFError, wave.Error, struct.error):
        return None
    if shape != (1, 2, RATE) or size != WAV_HEADER + 2 * frames:
        return None
    return frames / RATE


def wav_seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as w:
        return w.getnframes() / w.getframerate()


# ------------------------------------------------------------------ measuring
def window_db(samples: np.ndarray, window: float = 0.01) -> np.ndarray:
    """RMS level in dBFS of consecutive windows of `window` seconds."""
    n = max(1, int(RATE * window))
    usable = len(samples) // n * n
    if usable == 0:
        return np.full(1, -np.inf)
    frames = samples[:usable].astype(np.float64).reshape(-1, n)
    rms = np.sqrt(np.mean(frames**2, axis=1))
    with np.errstate(divide="ignore"):
        return 20 * np.log10(rms)


def speech_span(samples: np.ndarray, window: float = 0.01) -> tuple[float, float] | None:
    """(first, last) second with sound above SILENCE_DB, or None for silence."""
    loud = np.flatnonzero(window_db(samples, window) > SILENCE_DB)
    if loud.size == 0:
        return None
    return loud[0] * window, (loud[-1] + 1) * window


def trim(samples: np.ndarray, pad: float = 0.02) -> np.ndarray:
    """Cut the silence before and after the speech, keeping `pad` seconds on each side."""
    span = speech_span(samples)
    if span is None:
        return samples[:0]
    a = max(0, int((span[0] - pad) * RATE))
    b = min(len(samples), int((span[1] + pad) * RATE))
    return samples[a:b]


def loudness(samples: np.ndarray) -> float:
    """Integrated loudness in LUFS (ITU-R BS.1770-4); -inf for silence or < 0.4 s."""
    if len(samples) < int(0.4 * RATE) or not np.any(samples):
        return -math.inf
    with np.errstate(divide="ignore"):
        import pyloudnorm  # imports scipy.signal: only when a sound is measured

        return float(pyloudnorm.Meter(RATE).integrated_loudness(samples.astype(np.float64)))


def true_peak_db(samples: np.ndarray) -> float:
    """The true peak in dBTP: the sample peak of the signal oversampled 4×."""
    if not len(samples):
        return -math.inf
    from scipy.signal import resample_poly

    peak = float(np.max(np.abs(resample_poly(samples.astype(np.float32), 4, 1))))
    return 20 * math.log10(peak) if peak > 0 else -math.inf


# ------------------------------------------------------------------ shaping
def limit(samples: np.ndarray, ceiling_db: float, lookahead: float = 0.005) -> np.ndarray:
    """A look-ahead peak limiter: no (4× oversampled) peak above `ceiling_db`."""
    return (samples * peak_gain(samples, ceiling_db, lookahead)).astype(np.float32)


def peak_gain(signal: np.ndarray, ceiling_db: float, lookahead: float = 0.005) -> np.ndarray:
    """The gain per sample that keeps `signal`'s (4× oversampled) peaks under `ceiling_db`.

    The gain each sample needs is spread with a minimum filter and then smoothed
    with a box of the same width; every box around a peak only holds gains at most
    as large as the peak's own, so the smoothed gain still holds it under the ceiling.
    Away from the peaks it is exactly 1.
    """
    ceiling = 10 ** (ceiling_db / 20)
    from scipy.ndimage import minimum_filter1d, uniform_filter1d
    from scipy.signal import resample_poly

    over = np.abs(resample_poly(signal.astype(np.float32), 4, 1)).reshape(-1)
    need = np.minimum(1.0, ceiling / np.maximum(over, 1e-12))
    need = need[: len(signal) * 4].reshape(len(signal), -1).min(axis=1)
    width = max(3, int(RATE * lookahead) | 1)
    return uniform_filter1d(minimum_filter1d(need, width), width)


def normalise(samples: np.ndarray, ceiling_db: float = PEAK_DBTP - _PEAK_MARGIN_DB) -> np.ndarray:
    """Bring speech to TARGET_LUFS with its true peak under `ceiling_db` (silence stays silent);
    float32 samples that need nothing come back as they are (the same array)."""
    out = np.asarray(samples, dtype=np.float32)
    for _ in range(4):  # the limiter lowers loudness a little: measure again
        level = loudness(out)
        if not math.isfinite(level):
            return out
        # e.g. a clip's track, made of beats already normalised (16-bit rounding may put a
        # limited peak a hair over the ceiling)
        if (
            abs(level - TARGET_LUFS) < _LEVEL_TOLERANCE_LU
            and true_peak_db(out) <= ceiling_db + 0.01
        ):
            return out
        out = (out * 10 ** ((TARGET_LUFS - level) / 20)).astype(np.float32)
        if true_peak_db(out) > ceiling_db:
            out = limit(out, ceiling_db)
        if abs(loudness(out) - TARGET_LUFS) < 0.2:
            break
    return out


# ------------------------------------------------------------------ clips
def add_track(video: Path, samples: np.ndarray, out: Path) -> None:
    """Write `out`: the video packets of `video` copied, plus `samples` encoded beside them."""
    fmt = formats.by_extension(out.suffix)
    with av.open(str(video)) as src, av.open(str(out), "w", options=fmt.mux_options) as dst:
        vin = src.streams.video[0]
        vout = dst.add_stream_from_template(vin)
        aout = sound_stream(dst, fmt)
        for packet in src.demux(vin):
            if packet.dts is None:
                continue
            packet.stream = vout
            dst.mux(packet)
        encode_samples(dst, aout, samples)


def sound_stream(container, fmt: formats.Format):
    """A mono speech stream in `container`, in the format's codec and at its bit rate."""
    codec = fmt.audio_codec
    # FFmpeg's fast AAC coder: half the time of its default for speech at this bit rate
    coder = {"aac_coder": "fast"} if codec == "aac" else {}
    stream = container.add_stream(codec, rate=RATE, layout="mono", options=coder)
    stream.bit_rate = fmt.audio_bitrate
    return stream


def whole_codec_frames(samples: np.ndarray) -> np.ndarray:
    """Cut or pad the (silent) tail to a whole number of AAC frames.

    A decoder returns whole 1024-sample frames, so a track of any other length comes
    back up to 21 ms longer; at the nearest whole frame it is off by at most 10.7 ms,
    inside one video frame even at 60 fps.
    """
    n = round(len(samples) / AAC_FRAME) * AAC_FRAME
    return np.pad(samples[:n], (0, max(0, n - len(samples))))


def encode_samples(container, stream, samples: np.ndarray) -> None:
    """Encode mono float samples into `stream` in chunks, then flush it."""
    samples = whole_codec_frames(samples)
    chunk = 4800
    for start in range(0, len(samples), chunk):
        piece = np.ascontiguousarray(samples[start : start + chunk], dtype=np.float32)
        frame = av.AudioFrame.from_ndarray(piece.reshape(1, -1), format="flt", layout="mono")
        frame.rate = RATE
        frame.pts, frame.time_base = start, Fraction(1, RATE)
        for packet in stream.encode(frame):
            container.mux(packet)
    for packet in stream.encode(None):
        container.mux(packet)


def voice_clip(video: Path, samples: np.ndarray, out: Path, fps: float) -> Sound:
    """`video` with `samples` as its sound, normalised, checked after encoding.

    A lossy codec can push a limited peak up by a dB or two, and at a sharp onset the
    AAC encoder sometimes overshoots by more however low the level. So the encoded
    file is decoded and measured; while its true peak is over PEAK_DBTP, the sound is
    turned down where the decoded peaks are (a few milliseconds around each; the rest
    keeps its level) and encoded again.
    """
    from rendering.core.validate import InvalidOutput

    seconds = len(samples) / RATE
    samples = np.asarray(samples, dtype=np.float32)
    guess = out.with_name(f".{out.stem}.as-is{out.suffix}")
    try:
        # a track joined from beats normalised already is most often left as it is: it is
        # encoded while that is measured, and the encode kept when it was
        with ThreadPoolExecutor(1, thread_name_prefix="encode") as pool:
            early = pool.submit(add_track, video, samples, guess)
            sound_in = normalise(samples)
            early.result()
        if sound_in is samples:
            os.replace(guess, out)
        for attempt in range(1, ENCODE_TRIES + 1):
            if attempt > 1 or sound_in is not samples:
                add_track(video, sound_in, out)
            sound = check_sound(out, seconds, fps)
            if sound.true_peak <= PEAK_DBTP:
                return sound
            sound_in = lower_encoded_peaks(sound_in, decode(out), attempt * _RETRY_MARGIN_DB)
    finally:
        guess.unlink(missing_ok=True)
    raise InvalidOutput(f"{out.name}: true peak {sound.true_peak:.1f} dBTP stays over {PEAK_DBTP}")


def lower_encoded_peaks(
    sound_in: np.ndarray, decoded: np.ndarray, margin_db: float = _RETRY_MARGIN_DB
) -> np.ndarray:
    """`sound_in` turned down (locally) where its encoded and decoded form peaks higher than
    `margin_db` under the ceiling; each retry asks for a wider margin, as the codec's own
    noise does not shrink with the level."""
    heard = np.zeros_like(sound_in)
    n = min(len(heard), len(decoded))
    heard[:n] = decoded[:n]
    gain = peak_gain(heard, PEAK_DBTP - margin_db, lookahead=0.01)
    return (sound_in * gain).astype(np.float32)


@dataclass(frozen=True)
class Sound:
    codec: str
    rate: int
    duration: float  # seconds of decoded sound
    lufs: float
    true_peak: float


def check_sound(path: Path, video_seconds: float, fps: float) -> Sound:
    """Decode the audio of a finished clip: it must exist and end within a frame of the video."""
    from rendering.core.validate import InvalidOutput

    with av.open(str(path)) as container:
        if not container.streams.audio:
            raise InvalidOutput(f"{path.name} has no sound")
        stream = container.streams.audio[0]
        codec, rate = stream.codec_context.name, stream.codec_context.sample_rate
    samples = decode(path)
    seconds = len(samples) / RATE
    if abs(seconds - video_seconds) > 1 / fps + 1e-6:
        raise InvalidOutput(
            f"{path.name}: sound lasts {seconds:.3f} s but the picture {video_seconds:.3f} s"
        )
    return Sound(codec, rate, seconds, loudness(samples), true_peak_db(samples))
