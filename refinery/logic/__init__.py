"""The FOL language: syntax tree, grammar, parser, printer, analysis, lint and translations."""
