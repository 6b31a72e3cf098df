"""Localized validation messages: ``localize(errors, lang)``.

The validation engine writes its error records in English
(``should be integer``, ``should have required property 'name'``). ``localize`` returns
new records with the ``message`` rewritten in another language, built from each
record's ``keyword`` and ``params`` (so it works on any Ajv-shaped record, not by
translating the English text). The records given are never modified.

Languages: ``en``, ``de``, ``fr``, ``es``, ``ru`` (:data:`LANGUAGES`). A language tag
with a region (``de-CH``, ``pt_BR``) uses its base language; a language that is not
supported raises :class:`ValueError` (use :func:`negotiate` to pick a supported one from
an ``Accept-Language`` header; it falls back to ``en``).

Every draft-7 keyword the engine reports is covered: ``type``, ``required``,
``additionalProperties``, ``enum``, ``const``, ``minLength``, ``maxLength``, ``minItems``,
``maxItems``, ``minProperties``, ``maxProperties``, ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum``, ``multipleOf``, ``pattern``, ``format``,
``uniqueItems``, ``additionalItems``, ``contains``, ``dependencies``, ``propertyNames``,
``anyOf``, ``oneOf``, ``not``, ``if`` and ``false schema``. Records of the
``errorMessage`` keyword (:mod:`framework.plugins.error_messages`) are the user's own text and
pass through unchanged; any other keyword gets the generic "should pass "<kw>" keyword
validation" text. A record whose ``params`` lack what its message needs keeps its
message.

Example: an error handler answering validation failures in German::

    from framework import Framework
    from framework.plugins.i18n import localize

    app = Framework()

    def handle_error(error, request, reply):
        if getattr(error, "validation", None):
            return reply.code(400).send(localize(error.validation, "de"))
        return reply.send(error)

    app.set_error_handler(handle_error)

    @app.post("/users", schema={"body": {"type": "object", "required": ["name"],
                                         "properties": {"name": {"type": "string"}}}})
    def create(request, reply):
        return {"ok": True}

    # POST /users with {} -> 400
    # [{"keyword": "required", "instance_path": "", "schema_path": "#/required",
    #   "params": {"missingProperty": "name"},
    #   "message": "muss das erforderliche Attribut 'name' enthalten"}]
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from framework.validation.messages import ENGLISH, Formatter, Params
from framework.validation.messages import comparison as _comparison
from framework.validation.messages import count as _count
from framework.validation.messages import deps as _deps
from framework.validation.messages import js_text as _js
from framework.validation.messages import limit as _limit
from framework.validation.messages import plural as _s

__all__ = ["LANGUAGES", "localize", "message_for", "negotiate"]


def _ru(n: Any, one: str, many: str) -> str:
    """Russian genitive after "не менее"/"не более": 1, 21, 31... take ``one``."""
    n = _count(n)
    if isinstance(n, float) and not n.is_integer():
        return one
    n = int(n)
    return one if n % 10 == 1 and n % 100 != 11 else many


_DE: dict[str, Formatter] = {
    "type": lambda k, p: f"muss vom Typ {_js(p['type'])} sein",
    "required": lambda k, p: f"muss das erforderliche Attribut '{p['missingProperty']}' enthalten",
    "additionalProperties": lambda k, p: "darf keine zusätzlichen Attribute haben",
    "enum": lambda k, p: "muss einem der vorgegebenen Werte entsprechen",
    "const": lambda k, p: "muss gleich der Konstanten sein",
    "minLength": lambda k, p: f"darf nicht kürzer als {_limit(p)} Zeichen sein",
    "maxLength": lambda k, p: f"darf nicht länger als {_limit(p)} Zeichen sein",
    "minItems": lambda k, p: f"darf nicht weniger als {_limit(p)} {_s(p['limit'], 'Element', 'Elemente')} haben",
    "maxItems": lambda k, p: f"darf nicht mehr als {_limit(p)} {_s(p['limit'], 'Element', 'Elemente')} haben",
    "additionalItems": lambda k, p: (f"darf nicht mehr als {_limit(p)} "
                                     f"{_s(p['limit'], 'Element', 'Elemente')} haben"),
    "minProperties": lambda k, p: (f"darf nicht weniger als {_limit(p)} "
                                   f"{_s(p['limit'], 'Attribut', 'Attribute')} haben"),
    "maxProperties": lambda k, p: (f"darf nicht mehr als {_limit(p)} "
                                   f"{_s(p['limit'], 'Attribut', 'Attribute')} haben"),
    "minimum": lambda k, p: f"muss {_comparison(k, p)} {_limit(p)} sein",
    "multipleOf": lambda k, p: f"muss ein Vielfaches von {_js(p['multipleOf'])} sein",
    "pattern": lambda k, p: f'muss diesem Muster entsprechen: "{p["pattern"]}"',
    "format": lambda k, p: f'muss diesem Format entsprechen: "{p["format"]}"',
    "uniqueItems": lambda k, p: (f"darf keine Duplikate enthalten "
                                 f"(Elemente ## {_js(p['j'])} und {_js(p['i'])} sind gleich)"),
    "contains": lambda k, p: (f"muss mindestens {_js(p.get('minContains', 1))} "
                              f"gültige{'s' if p.get('minContains', 1) == 1 else ''} "
                              f"{_s(p.get('minContains', 1), 'Element', 'Elemente')} enthalten"),
    "dependencies": lambda k, p: "muss {} {} aufweisen, wenn Attribut {} gesetzt ist".format(
        _s(_deps(p)[1], "Attribut", "Attribute"), _deps(p)[0], p["property"]),
    "propertyNames": lambda k, p: "Attributname ist ungültig",
    "anyOf": lambda k, p: 'muss einem der Schemata in "anyOf" entsprechen',
    "oneOf": lambda k, p: 'muss genau einem der Schemata in "oneOf" entsprechen',
    "not": lambda k, p: 'muss dem in "not" angegebenen Schema widersprechen',
    "if": lambda k, p: f'muss dem Schema "{p["failingKeyword"]}" entsprechen',
    "false schema": lambda k, p: "boolesches Schema ist falsch",
    "*": lambda k, p: f'muss die Prüfung des Schlüsselworts "{k}" bestehen',
}

_FR: dict[str, Formatter] = {
    "type": lambda k, p: f"doit être de type {_js(p['type'])}",
    "required": lambda k, p: f"requiert la propriété '{p['missingProperty']}'",
    "additionalProperties": lambda k, p: "ne doit pas contenir de propriétés additionnelles",
    "enum": lambda k, p: "doit être égal à une des valeurs prédéfinies",
    "const": lambda k, p: "doit être égal à la constante",
    "minLength": lambda k, p: (f"ne doit pas faire moins de {_limit(p)} "
                               f"{_s(p['limit'], 'caractère', 'caractères', french=True)}"),
    "maxLength": lambda k, p: (f"ne doit pas dépasser {_limit(p)} "
                               f"{_s(p['limit'], 'caractère', 'caractères', french=True)}"),
    "minItems": lambda k, p: (f"ne doit pas contenir moins de {_limit(p)} "
                              f"{_s(p['limit'], 'élément', 'éléments', french=True)}"),
    "maxItems": lambda k, p: (f"ne doit pas contenir plus de {_limit(p)} "
                              f"{_s(p['limit'], 'élément', 'éléments', french=True)}"),
    "additionalItems": lambda k, p: (f"ne doit pas contenir plus de {_limit(p)} "
                                     f"{_s(p['limit'], 'élément', 'éléments', french=True)}"),
    "minProperties": lambda k, p: (f"ne doit pas contenir moins de {_limit(p)} "
                                   f"{_s(p['limit'], 'propriété', 'propriétés', french=True)}"),
    "maxProperties": lambda k, p: (f"ne doit pas contenir plus de {_limit(p)} "
                                   f"{_s(p['limit'], 'propriété', 'propriétés', french=True)}"),
    "minimum": lambda k, p: f"doit être {_comparison(k, p)} {_limit(p)}",
    "multipleOf": lambda k, p: f"doit être un multiple de {_js(p['multipleOf'])}",
    "pattern": lambda k, p: f'doit correspondre au motif "{p["pattern"]}"',
    "format": lambda k, p: f'doit correspondre au format "{p["format"]}"',
    "uniqueItems": lambda k, p: (f"ne doit pas contenir de doublons "
                                 f"(les éléments ## {_js(p['j'])} et {_js(p['i'])} sont identiques)"),
    "contains": lambda k, p: (f"doit contenir au moins {_js(p.get('minContains', 1))} "
                              f"{_s(p.get('minContains', 1), 'élément valide', 'éléments valides', french=True)}"),
    "dependencies": lambda k, p: "doit avoir {} {} quand la propriété {} est présente".format(
        _s(_deps(p)[1], "la propriété", "les propriétés"), _deps(p)[0], p["property"]),
    "propertyNames": lambda k, p: "le nom de propriété est invalide",
    "anyOf": lambda k, p: 'doit correspondre à un schéma de "anyOf"',
    "oneOf": lambda k, p: 'doit correspondre à exactement un schéma de "oneOf"',
    "not": lambda k, p: 'ne doit pas être valide selon le schéma "not"',
    "if": lambda k, p: f'doit correspondre au schéma "{p["failingKeyword"]}"',
    "false schema": lambda k, p: 'le schéma est "false"',
    "*": lambda k, p: f'doit être valide selon le mot-clé "{k}"',
}

_ES: dict[str, Formatter] = {
    "type": lambda k, p: f"debe ser {_js(p['type'])}",
    "required": lambda k, p: f"debe tener la propiedad requerida '{p['missingProperty']}'",
    "additionalProperties": lambda k, p: "no debe tener propiedades adicionales",
    "enum": lambda k, p: "debe ser igual a uno de los valores permitidos",
    "const": lambda k, p: "debe ser igual a la constante",
    "minLength": lambda k, p: f"no debe tener menos de {_limit(p)} {_s(p['limit'], 'carácter', 'caracteres')}",
    "maxLength": lambda k, p: f"no debe tener más de {_limit(p)} {_s(p['limit'], 'carácter', 'caracteres')}",
    "minItems": lambda k, p: f"no debe tener menos de {_limit(p)} {_s(p['limit'], 'elemento', 'elementos')}",
    "maxItems": lambda k, p: f"no debe tener más de {_limit(p)} {_s(p['limit'], 'elemento', 'elementos')}",
    "additionalItems": lambda k, p: (f"no debe tener más de {_limit(p)} "
                                     f"{_s(p['limit'], 'elemento', 'elementos')}"),
    "minProperties": lambda k, p: (f"no debe tener menos de {_limit(p)} "
                                   f"{_s(p['limit'], 'propiedad', 'propiedades')}"),
    "maxProperties": lambda k, p: (f"no debe tener más de {_limit(p)} "
                                   f"{_s(p['limit'], 'propiedad', 'propiedades')}"),
    "minimum": lambda k, p: f"debe ser {_comparison(k, p)} {_limit(p)}",
    "multipleOf": lambda k, p: f"debe ser múltiplo de {_js(p['multipleOf'])}",
    "pattern": lambda k, p: f'debe coincidir con el patrón "{p["pattern"]}"',
    "format": lambda k, p: f'debe coincidir con el formato "{p["format"]}"',
    "uniqueItems": lambda k, p: (f"no debe tener elementos duplicados "
                                 f"(los elementos ## {_js(p['j'])} y {_js(p['i'])} son idénticos)"),
    "contains": lambda k, p: (f"debe contener al menos {_js(p.get('minContains', 1))} "
                              f"{_s(p.get('minContains', 1), 'elemento válido', 'elementos válidos')}"),
    "dependencies": lambda k, p: "debe tener {} {} cuando la propiedad {} está presente".format(
        _s(_deps(p)[1], "la propiedad", "las propiedades"), _deps(p)[0], p["property"]),
    "propertyNames": lambda k, p: "el nombre de la propiedad no es válido",
    "anyOf": lambda k, p: 'debe coincidir con algún esquema en "anyOf"',
    "oneOf": lambda k, p: 'debe coincidir con exactamente un esquema en "oneOf"',
    "not": lambda k, p: 'no debe ser válido según el esquema en "not"',
    "if": lambda k, p: f'debe coincidir con el esquema "{p["failingKeyword"]}"',
    "false schema": lambda k, p: 'el esquema es "false"',
    "*": lambda k, p: f'debe pasar la validación de la palabra clave "{k}"',
}

_RU: dict[str, Formatter] = {
    "type": lambda k, p: f"должно быть {_js(p['type'])}",
    "required": lambda k, p: f"должно иметь обязательное поле '{p['missingProperty']}'",
    "additionalProperties": lambda k, p: "не должно иметь дополнительных полей",
    "enum": lambda k, p: "должно быть равно одному из допустимых значений",
    "const": lambda k, p: "должно быть равно заданному значению",
    "minLength": lambda k, p: f"должно иметь не менее {_limit(p)} {_ru(p['limit'], 'символа', 'символов')}",
    "maxLength": lambda k, p: f"должно иметь не более {_limit(p)} {_ru(p['limit'], 'символа', 'символов')}",
    "minItems": lambda k, p: f"должно иметь не менее {_limit(p)} {_ru(p['limit'], 'элемента', 'элементов')}",
    "maxItems": lambda k, p: f"должно иметь не более {_limit(p)} {_ru(p['limit'], 'элемента', 'элементов')}",
    "additionalItems": lambda k, p: (f"должно иметь не более {_limit(p)} "
                                     f"{_ru(p['limit'], 'элемента', 'элементов')}"),
    "minProperties": lambda k, p: f"должно иметь не менее {_limit(p)} {_ru(p['limit'], 'поля', 'полей')}",
    "maxProperties": lambda k, p: f"должно иметь не более {_limit(p)} {_ru(p['limit'], 'поля', 'полей')}",
    "minimum": lambda k, p: f"должно быть {_comparison(k, p)} {_limit(p)}",
    "multipleOf": lambda k, p: f"должно быть кратным {_js(p['multipleOf'])}",
    "pattern": lambda k, p: f'должно соответствовать образцу "{p["pattern"]}"',
    "format": lambda k, p: f'должно соответствовать формату "{p["format"]}"',
    "uniqueItems": lambda k, p: (f"не должно иметь повторяющихся элементов "
                                 f"(элементы {_js(p['j'])} и {_js(p['i'])} идентичны)"),
    "contains": lambda k, p: (f"должно содержать не менее {_js(p.get('minContains', 1))} "
                              f"{_ru(p.get('minContains', 1), 'правильного элемента', 'правильных элементов')}"),
    "dependencies": lambda k, p: "должно иметь {} {}, когда присутствует поле {}".format(
        "поле" if _deps(p)[1] == 1 else "поля", _deps(p)[0], p["property"]),
    "propertyNames": lambda k, p: "имя поля не соответствует схеме",
    "anyOf": lambda k, p: 'должно соответствовать одной из схем в "anyOf"',
    "oneOf": lambda k, p: 'должно соответствовать в точности одной схеме в "oneOf"',
    "not": lambda k, p: 'должно не соответствовать схеме в "not"',
    "if": lambda k, p: f'должно соответствовать схеме "{p["failingKeyword"]}"',
    "false schema": lambda k, p: "схема равна false",
    "*": lambda k, p: f'должно соответствовать правилу "{k}"',
}

# Each table maps a keyword to fn(keyword, params) -> message; "*" is the generic entry
# (unknown keyword). English is the validator's own table.
_EN = ENGLISH

for _table in (_DE, _FR, _ES, _RU):
    for _kw in ("maximum", "exclusiveMinimum", "exclusiveMaximum"):
        _table[_kw] = _table["minimum"]
del _table, _kw

_TABLES: dict[str, dict[str, Formatter]] = {"en": _EN, "de": _DE, "fr": _FR, "es": _ES, "ru": _RU}

#: The supported languages, in the order :func:`negotiate` prefers on a tie.
LANGUAGES: tuple[str, ...] = tuple(_TABLES)

#: Keywords whose records carry the user's own text: never rewritten.
PASSTHROUGH_KEYWORDS = frozenset({"errorMessage"})


def _table_for(lang: object) -> dict[str, Formatter]:
    if not isinstance(lang, str):
        raise ValueError(f"language must be a string such as 'de', not {lang!r}")
    base = lang.strip().replace("_", "-").split("-", 1)[0].lower()
    try:
        return _TABLES[base]
    except KeyError:
        raise ValueError(
            f"unsupported language {lang!r}; supported: {', '.join(LANGUAGES)}") from None


def message_for(keyword: str, params: Params | None, lang: str = "en") -> str:
    """The message for one ``keyword`` with its Ajv ``params`` in ``lang``.

    >>> message_for("maxLength", {"limit": 5}, "de")
    'darf nicht länger als 5 Zeichen sein'

    Raises :class:`KeyError` when ``params`` lack a value the message needs and
    :class:`ValueError` for an unsupported language.
    """
    table = _table_for(lang)
    formatter = table.get(keyword, table["*"])
    return formatter(keyword, params or {})


def localize(errors: Iterable[Mapping[str, Any]] | None, lang: str = "en") -> list[dict[str, Any]]:
    """Return new error records with their ``message`` in ``lang``; ``errors`` is untouched.

    >>> localize([{"keyword": "minimum", "instance_path": "/age", "schema_path":
    ...            "#/properties/age/minimum", "params": {"comparison": ">=", "limit": 18},
    ...            "message": "should be >= 18"}], "fr")[0]["message"]
    'doit être >= 18'

    ``errorMessage`` records keep their text. Each record is a shallow copy with its own
    copy of ``params``. ``None`` gives ``[]``. Raises :class:`ValueError` for a language
    that is not in :data:`LANGUAGES` (``de-CH`` counts as ``de``).
    """
    table = _table_for(lang)
    localized: list[dict[str, Any]] = []
    params: Params | None
    for record in errors or ():
        new = dict(record)
        params = record.get("params")
        if isinstance(params, Mapping):
            new["params"] = dict(params)
        keyword = record.get("keyword")
        if isinstance(keyword, str) and keyword not in PASSTHROUGH_KEYWORDS:
            formatter = table.get(keyword, table["*"])
            try:
                new["message"] = formatter(keyword, params if isinstance(params, Mapping) else {})
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # params without what the message needs: keep the engine's text
        localized.append(new)
    return localized


def negotiate(accept_language: str | None, default: str = "en") -> str:
    """The best supported language for an ``Accept-Language`` header value, else ``default``.

    >>> negotiate("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7")
    'fr'
    >>> negotiate("pt-BR, ja")
    'en'
    """
    best: tuple[float, int, str] | None = None
    for position, part in enumerate((accept_language or "").split(",")):
        tag, _, rest = part.strip().partition(";")
        quality = 1.0
        for param in rest.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        base = tag.strip().replace("_", "-").split("-", 1)[0].lower()
        if quality <= 0 or base not in _TABLES:
            continue
        candidate = (-quality, position, base)
        if best is None or candidate < best:
            best = candidate
    return best[2] if best else default
