"""Django: a model field of snowflake IDs, usable as the primary key.

``SnowflakeField(primary_key=True)`` is a BIGINT column whose value is drawn
on save when it is empty (``save()``, ``create()``, ``bulk_create()``); its
migrations name it ``snowflake_c.django.SnowflakeField``. The IDs come from
one Generator per process, made on the first ID a process draws from the
``SNOWFLAKE_C`` setting: either the Generator's keywords, e.g.

    SNOWFLAKE_C = {"preset": "twitter", "node": {"datacenter": 1, "worker": "auto"},
                   "state_dir": "/var/lib/myapp/snowflake"}

or the dotted path of a zero-argument callable that returns a Generator.
Made per process, so a pre-forking server (gunicorn --preload, uwsgi) gives
each worker its own; with ``"auto"`` and a ``state_dir`` each takes its own
node value from the pool; with ``"worker": "lease"``, ``"lease"`` may name a
PostgreSQL database of DATABASES. See docs/integrations/python-django.md. Needs
``pip install snowflake-c[django]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.db import models
from django.utils.module_loading import import_string

from ._generator import Generator
from ._per_process import PerProcess, check_bigint
from ._snowflake_c import InvalidArgument, InvalidLayout

__all__ = ["SnowflakeField", "generator"]

SETTING = "SNOWFLAKE_C"
_EXAMPLE = 'SNOWFLAKE_C = {"preset": "twitter", "node": {"datacenter": 1, "worker": "auto"}, "state_dir": "..."}'


def _from_settings() -> Generator:
    """A new Generator as the SNOWFLAKE_C setting describes it."""
    config = getattr(settings, SETTING, None)
    if config is None:
        raise ImproperlyConfigured(f"snowflake_c.django needs the {SETTING} setting, e.g. {_EXAMPLE}")
    try:
        if isinstance(config, str):
            factory: Callable[[], Generator] = import_string(config)
            made = factory()
        elif isinstance(config, dict):
            made = Generator(**_lease_from_databases(config))
        else:
            raise ImproperlyConfigured(
                f"{SETTING} is a dict of Generator keywords or the dotted path of a callable that returns "
                f"a Generator, not {type(config).__qualname__}"
            )
    except (ImportError, InvalidArgument, InvalidLayout, TypeError) as e:
        raise ImproperlyConfigured(f"{SETTING}: {e}") from e
    if not isinstance(made, Generator):
        raise ImproperlyConfigured(f"{SETTING}: {config} returned {type(made).__qualname__}, not a Generator")
    try:
        check_bigint(made)
    except ValueError as e:
        if isinstance(config, dict):
            made.close()  # made here and refused: its node value goes back at once
        raise ImproperlyConfigured(f"{SETTING}: {e}") from e
    return made


# OPTIONS of Django's PostgreSQL backend that are Django's own, not libpq's.
_DJANGO_OPTIONS = {"isolation_level", "server_side_binding", "assume_role", "pool", "cursor_factory", "context"}


def _lease_from_databases(config: dict[str, Any]) -> dict[str, Any]:
    """``"lease": ALIAS`` names a database of DATABASES: the lease's
    connection is made from that PostgreSQL database's settings, so that the
    address and credentials are written once."""
    alias = config.get("lease")
    databases = getattr(settings, "DATABASES", {})
    if not isinstance(alias, str) or alias not in databases:
        return config
    db = databases[alias]
    if "postgresql" not in db.get("ENGINE", ""):
        raise ImproperlyConfigured(
            f"{SETTING}: lease names the database {alias!r}, whose ENGINE is {db.get('ENGINE')!r}: "
            "node values are leased from PostgreSQL only"
        )
    from psycopg.conninfo import make_conninfo

    given = {
        "dbname": db.get("NAME"),
        "user": db.get("USER"),
        "password": db.get("PASSWORD"),
        "host": db.get("HOST"),
        "port": db.get("PORT"),
    }
    options = db.get("OPTIONS", {})
    given.update({k: v for k, v in options.items() if k not in _DJANGO_OPTIONS and isinstance(v, (str, int))})
    conninfo = make_conninfo(**{k: v for k, v in given.items() if v not in (None, "")})
    return {**config, "lease": conninfo}


_generator = PerProcess(_from_settings)


def generator() -> Generator:
    """This process's Generator, made from the SNOWFLAKE_C setting on the
    first call in each process (a forked worker makes its own)."""
    return _generator()


def _reset(*, setting: str, **kwargs: Any) -> None:
    """A changed SNOWFLAKE_C (override_settings in tests) makes a new Generator."""
    if setting == SETTING:
        _generator.reset()


setting_changed.connect(_reset, dispatch_uid="snowflake_c.django")


def _drawn_on_save() -> None:
    """A SnowflakeField's default: no value until the row is saved. (A
    default that Django sees, so that it inserts a new row straight away,
    without trying an UPDATE first; left out of migrations.)"""
    return None


class SnowflakeField(models.BigIntegerField):  # type: ignore[type-arg]
    """A snowflake ID stored as BIGINT, drawn from this process's Generator
    (the SNOWFLAKE_C setting) when a row is saved without one: by save(),
    create() or bulk_create(). Takes the keywords of BigIntegerField:
    ``SnowflakeField(primary_key=True)`` makes it the model's key."""

    description = "Snowflake ID (64-bit, time-ordered)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("default", _drawn_on_save)
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        """The field as migrations write it: snowflake_c.django.SnowflakeField
        and the keywords given, not its implicit default."""
        name, path, args, kwargs = super().deconstruct()
        if kwargs.get("default") is _drawn_on_save:
            del kwargs["default"]
        return name, path, args, kwargs

    def get_pk_value_on_save(self, instance: models.Model) -> Any:
        """The key of an instance saved without one (save(), bulk_create()): a new ID."""
        if self.default is _drawn_on_save:
            return generator().next_id()
        return super().get_pk_value_on_save(instance)  # type: ignore[misc]  # Django's, not in its stubs

    def pre_save(self, model_instance: models.Model, add: bool) -> Any:
        """The field's value for the INSERT or UPDATE: on insert, an empty
        value is drawn from the Generator and set on the instance."""
        value = getattr(model_instance, self.attname)
        if add and value is None and self.default is _drawn_on_save:
            value = generator().next_id()
            setattr(model_instance, self.attname, value)
        return value
