#!/usr/bin/env python3
"""A strict reader of Tiled maps, TMX and TMJ, for the tests: every attribute
the TMX/TMJ map format documentation lists for what cavegen writes must be
there with a value of the documented type, including those the format calls
optional but strict importers require (tiledversion, a tile layer's encoding,
an object group's draworder); ids unique, nextlayerid and nextobjectid above
them, the layer data as many tiles as the map has cells, every gid in the
tileset. Python standard library only.

Usage: tiled_strict.py FILE.tmx|FILE.tmj ...   (exit 1 with the first fault)
"""
import json
import sys
import xml.etree.ElementTree as ET

ORIENTATIONS = {"orthogonal", "isometric", "staggered", "hexagonal"}
RENDERORDERS = {"right-down", "right-up", "left-down", "left-up"}
PROPERTY_TYPES = {"string", "int", "float", "bool", "color", "file", "object", "class"}


class Fault(Exception):
    pass


def need(cond, where, what):
    if not cond:
        raise Fault(f"{where}: {what}")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def xml_int(el, name, where):
    v = el.get(name)
    need(v is not None, where, f"no {name} attribute")
    need(v.lstrip("-").isdigit(), where, f"{name}={v!r} is not an integer")
    return int(v)


def check_ids(layer_ids, object_ids, next_layer, next_object, where):
    need(len(set(layer_ids)) == len(layer_ids), where, "two layers share an id")
    need(len(set(object_ids)) == len(object_ids), where, "two objects share an id")
    need(all(i < next_layer for i in layer_ids), where, "nextlayerid is not above every layer id")
    need(all(i < next_object for i in object_ids), where, "nextobjectid is not above every object id")


def check_tmx(path):
    root = ET.parse(path).getroot()
    w = f"{path}: <map>"
    need(root.tag == "map", w, "the root is not <map>")
    for a in ("version", "tiledversion", "orientation", "renderorder"):
        need(root.get(a), w, f"no {a} attribute")
    need(root.get("orientation") in ORIENTATIONS, w, "unknown orientation")
    need(root.get("renderorder") in RENDERORDERS, w, "unknown renderorder")
    width, height = xml_int(root, "width", w), xml_int(root, "height", w)
    for a in ("tilewidth", "tileheight", "nextlayerid", "nextobjectid"):
        xml_int(root, a, w)
    need(root.get("infinite") in ("0", "1"), w, "infinite is not 0 or 1")
    for props in root.iter("properties"):
        for p in props:
            need(p.tag == "property" and p.get("name"), f"{path}: <property>", "no name")
            need(p.get("type", "string") in PROPERTY_TYPES, f"{path}: <property>", "unknown type")
            need(p.get("value") is not None or p.text is not None, f"{path}: <property>", "no value")
    tilecount = 0
    for ts in root.findall("tileset"):
        tw = f"{path}: <tileset>"
        for a in ("firstgid", "tilewidth", "tileheight", "tilecount", "columns"):
            xml_int(ts, a, tw)
        need(ts.get("name"), tw, "no name")
        img = ts.find("image")
        need(img is not None and img.get("source"), tw, "no <image source>")
        xml_int(img, "width", tw)
        xml_int(img, "height", tw)
        tilecount = max(tilecount, int(ts.get("firstgid")) + int(ts.get("tilecount")))
    need(tilecount > 0, w, "no tileset")
    layer_ids, object_ids = [], []
    for el in root:
        if el.tag == "layer":
            lw = f"{path}: <layer>"
            layer_ids.append(xml_int(el, "id", lw))
            need(el.get("name"), lw, "no name")
            need(xml_int(el, "width", lw) == width and xml_int(el, "height", lw) == height, lw,
                 "not the map's size")
            data = el.find("data")
            need(data is not None and data.get("encoding") == "csv", lw, "no <data encoding=\"csv\">")
            gids = [int(t) for t in data.text.replace("\n", "").split(",")]
            need(len(gids) == width * height, lw, f"{len(gids)} tiles for {width}x{height} cells")
            need(all(0 <= g < tilecount for g in gids), lw, "a gid outside the tileset")
        elif el.tag == "objectgroup":
            ow = f"{path}: <objectgroup>"
            layer_ids.append(xml_int(el, "id", ow))
            need(el.get("name"), ow, "no name")
            need(el.get("draworder") in ("topdown", "index"), ow, "no draworder")
            for o in el.findall("object"):
                obw = f"{path}: <object>"
                object_ids.append(xml_int(o, "id", obw))
                for a in ("x", "y", "width", "height", "gid"):
                    xml_int(o, a, obw)
                need(0 < int(o.get("gid")) < tilecount, obw, "a gid outside the tileset")
                need(o.get("name") is not None and o.get("type") is not None, obw, "no name or type")
    check_ids(layer_ids, object_ids, int(root.get("nextlayerid")), int(root.get("nextobjectid")), w)


def check_tmj(path):
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    w = f"{path}: map"
    need(m.get("type") == "map", w, "type is not \"map\"")
    for k in ("version", "tiledversion"):
        need(isinstance(m.get(k), str) and m[k], w, f"no {k} string")
    need(m.get("orientation") in ORIENTATIONS, w, "no or unknown orientation")
    need(m.get("renderorder") in RENDERORDERS, w, "no or unknown renderorder")
    for k in ("width", "height", "tilewidth", "tileheight", "nextlayerid", "nextobjectid"):
        need(is_int(m.get(k)), w, f"no integer {k}")
    need(isinstance(m.get("infinite"), bool), w, "infinite is not a boolean")
    for p in m.get("properties", []):
        pw = f"{path}: property {p.get('name')!r}"
        need(isinstance(p.get("name"), str), pw, "no name")
        need(p.get("type") in PROPERTY_TYPES, pw, "no or unknown type")
        kinds = {"int": is_int, "bool": lambda v: isinstance(v, bool),
                 "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)}
        need(kinds.get(p["type"], lambda v: isinstance(v, str))(p.get("value")), pw,
             "a value not of its type")
    tilecount = 0
    for ts in m.get("tilesets", []):
        tw = f"{path}: tileset"
        for k in ("firstgid", "columns", "tilewidth", "tileheight", "tilecount", "spacing", "margin",
                  "imagewidth", "imageheight"):
            need(is_int(ts.get(k)), tw, f"no integer {k}")
        need(isinstance(ts.get("name"), str) and isinstance(ts.get("image"), str), tw,
             "no name or image")
        tilecount = max(tilecount, ts["firstgid"] + ts["tilecount"])
    need(tilecount > 0, w, "no tileset")
    layer_ids, object_ids = [], []
    for layer in m.get("layers", []):
        lw = f"{path}: layer {layer.get('name')!r}"
        for k in ("id", "x", "y"):
            need(is_int(layer.get(k)), lw, f"no integer {k}")
        need(isinstance(layer.get("name"), str), lw, "no name")
        need(isinstance(layer.get("opacity"), (int, float)), lw, "no opacity")
        need(isinstance(layer.get("visible"), bool), lw, "no visible boolean")
        layer_ids.append(layer["id"])
        if layer.get("type") == "tilelayer":
            need(layer.get("encoding") == "csv", lw, "no encoding \"csv\"")
            need(layer.get("width") == m["width"] and layer.get("height") == m["height"], lw,
                 "not the map's size")
            data = layer.get("data")
            need(isinstance(data, list) and len(data) == m["width"] * m["height"], lw,
                 "data is not one gid per cell")
            need(all(is_int(g) and 0 <= g < tilecount for g in data), lw, "a gid outside the tileset")
        elif layer.get("type") == "objectgroup":
            need(layer.get("draworder") in ("topdown", "index"), lw, "no draworder")
            for o in layer.get("objects", []):
                ow = f"{path}: object {o.get('id')}"
                for k in ("id", "x", "y", "width", "height", "gid"):
                    need(is_int(o.get(k)), ow, f"no integer {k}")
                need(isinstance(o.get("rotation"), (int, float)), ow, "no rotation")
                need(isinstance(o.get("visible"), bool), ow, "no visible boolean")
                need(isinstance(o.get("name"), str) and isinstance(o.get("type"), str), ow,
                     "no name or type")
                need(0 < o["gid"] < tilecount, ow, "a gid outside the tileset")
                object_ids.append(o["id"])
        else:
            raise Fault(f"{lw}: unknown layer type {layer.get('type')!r}")
    check_ids(layer_ids, object_ids, m["nextlayerid"], m["nextobjectid"], w)


def main(paths):
    for path in paths:
        try:
            (check_tmj if path.endswith(".tmj") else check_tmx)(path)
        except (Fault, ValueError, ET.ParseError, KeyError, TypeError) as e:
            print(f"tiled_strict: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
