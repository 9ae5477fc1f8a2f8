"""Written by scripts/kokoro_ranges.py: the ranges of the 8-bit convolutions' inputs
and outputs (low, high, low, high), measured on the lesson's speech and widened by 5 %.
"""

# fmt: off
RANGES: dict[str, tuple[float, float, float, float]] = {
    "/decoder/decoder/generator/noise_res.0/convs1.0/Conv_quant_float2d": (-33.47, 35.67, -18.85, 24.14),
    "/decoder/decoder/generator/noise_res.0/convs1.1/Conv_quant_float2d": (-39.69, 46.06, -22.56, 15.54),
    "/decoder/decoder/generator/noise_res.0/convs1.2/Conv_quant_float2d": (-26.77, 29.44, -11.57, 8.651),
    "/decoder/decoder/generator/noise_res.1/convs1.0/Conv_quant_float2d": (-42.81, 32.68, -31.13, 32.13),
    "/decoder/decoder/generator/noise_res.1/convs1.1/Conv_quant_float2d": (-26.67, 29.32, -9.538, 8.979),
    "/decoder/decoder/generator/noise_res.1/convs1.2/Conv_quant_float2d": (-20.09, 13.75, -6.373, 7.937),
    "/decoder/decoder/generator/resblocks.0/convs1.0/Conv_quant_float2d": (-21.69, 32.18, -11.06, 14.11),
    "/decoder/decoder/generator/resblocks.0/convs1.1/Conv_quant_float2d": (-20.09, 27.3, -9.247, 10.72),
    "/decoder/decoder/generator/resblocks.0/convs1.2/Conv_quant_float2d": (-20.15, 38.93, -15.08, 18.99),
    "/decoder/decoder/generator/resblocks.1/convs1.0/Conv_quant_float2d": (-26.14, 29.38, -24.23, 21.53),
    "/decoder/decoder/generator/resblocks.1/convs1.1/Conv_quant_float2d": (-26.69, 26.12, -22.51, 26.73),
    "/decoder/decoder/generator/resblocks.1/convs1.2/Conv_quant_float2d": (-20.09, 29.43, -35.19, 37.25),
    "/decoder/decoder/generator/resblocks.2/convs1.0/Conv_quant_float2d": (-27, 31.51, -18.56, 18.48),
    "/decoder/decoder/generator/resblocks.2/convs1.1/Conv_quant_float2d": (-26.83, 25.46, -14.91, 19.95),
    "/decoder/decoder/generator/resblocks.2/convs1.2/Conv_quant_float2d": (-26.65, 22.79, -16, 18.66),
    "/decoder/decoder/generator/resblocks.3/convs1.0/Conv_quant_float2d": (-39.97, 39.24, -22.48, 21.93),
    "/decoder/decoder/generator/resblocks.3/convs1.1/Conv_quant_float2d": (-42.74, 43.42, -25.53, 30.37),
    "/decoder/decoder/generator/resblocks.3/convs1.2/Conv_quant_float2d": (-24.91, 26.71, -25.11, 25.93),
    "/decoder/decoder/generator/resblocks.4/convs1.0/Conv_quant_float2d": (-102.5, 111.7, -37.75, 55.38),
    "/decoder/decoder/generator/resblocks.4/convs1.1/Conv_quant_float2d": (-53.23, 35.97, -23.61, 24.14),
    "/decoder/decoder/generator/resblocks.4/convs1.2/Conv_quant_float2d": (-24.05, 28.64, -36.98, 48.73),
    "/decoder/decoder/generator/resblocks.5/convs1.0/Conv_quant_float2d": (-103.1, 111.8, -53.06, 50.33),
    "/decoder/decoder/generator/resblocks.5/convs1.1/Conv_quant_float2d": (-38.2, 35.99, -29.99, 32.26),
    "/decoder/decoder/generator/resblocks.5/convs1.2/Conv_quant_float2d": (-39.84, 54.3, -25.16, 31.66),
}
# fmt: on
