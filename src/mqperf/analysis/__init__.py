"""Chapter-level analysis: load a chapter's data, fit its models, build its tables.

These functions keep chapter notebooks to prose and a few calls; the models themselves
live in :mod:`mqperf.models`.
"""
