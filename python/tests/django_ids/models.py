"""The model test_django.py saves: its key and a second column are snowflake IDs."""

from __future__ import annotations

from django.db import models

from snowflake_c.django import SnowflakeField


class Row(models.Model):
    id = SnowflakeField(primary_key=True)
    copy = SnowflakeField(unique=True)  # drawn on save too: a field need not be the key
    pid: models.IntegerField[int, int] = models.IntegerField()
    thread: models.IntegerField[int, int] = models.IntegerField()
