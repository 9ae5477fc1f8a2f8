"""Written by scripts/kokoro_ranges.py: the ranges of the 8-bit convolutions' inputs
and outputs (low, high, low, high), measured on the lesson's speech.
"""

# fmt: off
RANGES: dict[str, tuple[float, float, float, float]] = {
    "/decoder/decoder/generator/noise_res.0/convs1.0/Conv_quant_float2d": (-26.42, 26.77, -17.95, 22.99),
    "/decoder/decoder/generator/noise_res.0/convs1.1/Conv_quant_float2d": (-26.33, 33.09, -21.49, 14.8),
    "/decoder/decoder/generator/noise_res.0/convs1.2/Conv_quant_float2d": (-17.53, 19.29, -11.02, 8.239),
    "/decoder/decoder/generator/noise_res.1/convs1.0/Conv_quant_float2d": (-27.92, 23.87, -29.65, 30.6),
    "/decoder/decoder/generator/noise_res.1/convs1.1/Conv_quant_float2d": (-11.9, 13.1, -9.084, 8.552),
    "/decoder/decoder/generator/noise_res.1/convs1.2/Conv_quant_float2d": (-8.342, 11.57, -6.07, 7.559),
    "/decoder/decoder/generator/resblocks.0/convs1.0/Conv_quant_float2d": (-21.44, 28.75, -10.54, 13.44),
    "/decoder/decoder/generator/resblocks.0/convs1.1/Conv_quant_float2d": (-21.17, 23.21, -8.807, 10.21),
    "/decoder/decoder/generator/resblocks.0/convs1.2/Conv_quant_float2d": (-21.96, 40.05, -14.36, 18.09),
    "/decoder/decoder/generator/resblocks.1/convs1.0/Conv_quant_float2d": (-30.35, 30.8, -23.08, 20.51),
    "/decoder/decoder/generator/resblocks.1/convs1.1/Conv_quant_float2d": (-32.97, 43.08, -21.43, 25.46),
    "/decoder/decoder/generator/resblocks.1/convs1.2/Conv_quant_float2d": (-52.59, 62.28, -33.52, 35.48),
    "/decoder/decoder/generator/resblocks.2/convs1.0/Conv_quant_float2d": (-28.41, 31.2, -17.68, 17.6),
    "/decoder/decoder/generator/resblocks.2/convs1.1/Conv_quant_float2d": (-25.85, 30.23, -14.2, 19),
    "/decoder/decoder/generator/resblocks.2/convs1.2/Conv_quant_float2d": (-26.46, 27.06, -15.24, 17.77),
    "/decoder/decoder/generator/resblocks.3/convs1.0/Conv_quant_float2d": (-46.6, 46.26, -21.41, 20.88),
    "/decoder/decoder/generator/resblocks.3/convs1.1/Conv_quant_float2d": (-38.02, 45.23, -24.31, 28.92),
    "/decoder/decoder/generator/resblocks.3/convs1.2/Conv_quant_float2d": (-34.49, 53.33, -23.91, 24.69),
    "/decoder/decoder/generator/resblocks.4/convs1.0/Conv_quant_float2d": (-102, 106.6, -35.95, 52.74),
    "/decoder/decoder/generator/resblocks.4/convs1.1/Conv_quant_float2d": (-63.04, 56.05, -22.49, 22.99),
    "/decoder/decoder/generator/resblocks.4/convs1.2/Conv_quant_float2d": (-43.07, 49.69, -35.22, 46.41),
    "/decoder/decoder/generator/resblocks.5/convs1.0/Conv_quant_float2d": (-103.1, 123.7, -50.53, 47.93),
    "/decoder/decoder/generator/resblocks.5/convs1.1/Conv_quant_float2d": (-44.92, 53.82, -28.56, 30.73),
    "/decoder/decoder/generator/resblocks.5/convs1.2/Conv_quant_float2d": (-45.63, 55.21, -23.96, 30.15),
}
# fmt: on
