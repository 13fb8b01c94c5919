"""Reports: metric tables (terminal, Markdown, HTML), plots, run comparison."""
