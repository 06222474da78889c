"""What usdt trace makes of the hits for the user: the lines, JSON, summaries (counts, spans,
histograms) and the timeline."""
