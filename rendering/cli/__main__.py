"""`python -m rendering.cli`: the command line of an installed package (`pe-explainer`)."""

from rendering.cli import main

main()
