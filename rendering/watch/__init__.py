"""The editing loop: watch the lesson's sources, re-render what changed, show it live."""
