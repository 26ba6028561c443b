"""A Django app for test_django.py: one model keyed by snowflake IDs."""
