"""Videos joined and counted by their packets: no frame is decoded or encoded again."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import av


def join(parts: list[Path], out: Path) -> None:
    """Join silent videos of one scene into `out` by copying packets, without re-encoding."""
    quoted = (p.resolve().as_posix().replace("'", "'\\''") for p in parts)
    listing = "".join(f"file 'file:{path}'\n" for path in quoted).encode()
    with (
        av.open(BytesIO(listing), format="concat", options={"safe": "0", "an": "1"}) as source,
        av.open(str(out), mode="w") as target,
    ):
        stream = source.streams.video[0]
        joined = target.add_stream_from_template(template=stream)
        for packet in source.demux(stream):
            if packet.dts is None:  # the flushing packet demux ends with
                continue
            packet.dts = None  # let libav derive it: the parts' dts restart at zero
            packet.stream = joined
            target.mux(packet)


def frames_in(path: Path) -> int:
    """Frames of a video, counted from its packets."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        return sum(1 for p in container.demux(stream) if p.dts is not None)
