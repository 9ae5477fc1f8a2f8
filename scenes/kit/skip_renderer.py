"""Manim's Cairo renderer, minus the drawing it does for plays it skips.

Manim skips a play (before a span, in a kept beat, in a test build) by jumping it to its
end, yet still paints the static mobjects and one frame of the moving ones, and throws
both away. Every drawn play paints its frames afresh (from its own static image or a
clean camera), so leaving those paintings out changes no frame; a still's last frame,
painted after the plays, is drawn as before.

It also lays a brand's logo over every frame it hands on.
"""

from __future__ import annotations

from typing import Any

from manim.renderer.cairo_renderer import CairoRenderer

from scenes.kit import brand


class SkipRenderer(CairoRenderer):
    _playing = False
    overlay = None  # laid over every frame as it leaves the camera (scenes.kit.brand)
    _bare = False  # taking a play's still background, which each frame is drawn over

    def play(self, scene, *args: Any, **kwargs: Any) -> None:
        self._playing = True
        try:
            super().play(scene, *args, **kwargs)
        finally:
            self._playing = False

    def _idle(self) -> bool:
        return self._playing and self.skip_animations

    def update_frame(self, scene, mobjects=None, include_submobjects=True, **kwargs: Any) -> None:
        if not self._idle():
            super().update_frame(scene, mobjects, include_submobjects, **kwargs)

    def save_static_frame_data(self, scene, static_mobjects):
        if self._idle():
            self.static_image = None
            return None
        self._bare = True  # the logo is laid over each frame made from it, once
        try:
            return super().save_static_frame_data(scene, static_mobjects)
        finally:
            self._bare = False

    def get_frame(self):
        frame = super().get_frame()
        if self.overlay is None or self._bare:
            return frame
        return brand.laid_over(frame, self.overlay)

    def freeze_current_frame(self, duration: float) -> None:
        if not self._idle():
            super().freeze_current_frame(duration)
