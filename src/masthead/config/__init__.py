"""Site settings: `masthead.toml` (TOML, https://toml.io/en/v1.0.0) plus `MASTHEAD_*` variables.

The package's face: `load_site(folder)` gives a `Site`, whose `settings` are a `Settings`.
- settings.py: every setting, declared once with its type, default and description;
- load.py: reading the file and the variables, one clear `ConfigError` for anything wrong;
- site.py: `Site` and its `Language`s;
- permalinks.py, mail.py, origins.py: the syntax of permalink patterns, mail addresses and web
  origins, checked when the settings load.
"""

from masthead.config.load import (
    CONFIG_FILE,
    ENV_COMMA_LISTS,
    ENV_PREFIX,
    ENV_TABLES,
    SCALARS,
    load_site,
    setting_source,
)
from masthead.config.settings import (
    LanguageSettings,
    MenuItem,
    PermalinkSettings,
    ReplicaSettings,
    SecuritySettings,
    Settings,
    ShareCardSettings,
)
from masthead.config.site import Language, Site

__all__ = [
    "CONFIG_FILE",
    "ENV_COMMA_LISTS",
    "ENV_PREFIX",
    "ENV_TABLES",
    "SCALARS",
    "Language",
    "LanguageSettings",
    "MenuItem",
    "PermalinkSettings",
    "ReplicaSettings",
    "SecuritySettings",
    "Settings",
    "ShareCardSettings",
    "Site",
    "load_site",
    "setting_source",
]
