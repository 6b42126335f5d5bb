"""Parsers for the text formats a submission is made of, each keeping line numbers."""
