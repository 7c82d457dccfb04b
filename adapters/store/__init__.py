"""JSON files on disk: `.ideai/*.json` of a project and the machine-local data files.

Every file is written atomically (`atomic.py`) and never overwritten when it could not be
read (a corrupt file, or one from a newer idea): the user gets an error naming the file.
"""
