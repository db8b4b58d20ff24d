/* _cavegen.c - the CPython extension behind the cavegen package: libcavegen's
 * pipelines, maps and batches as Python objects (docs/python.md).
 *
 * A Map holds its cg_grid and a copy of its cells, one byte each (0 floor,
 * 1 wall: cg_grid_copy's CG_COPY_CELLS), which it exports through the buffer
 * protocol as a read-only 2-D uint8 array of shape (height, width), so that
 * numpy.asarray(map) is a view, not a copy. A map never changes once made,
 * so every method that only reads it (writers, searches, figures) runs with
 * the GIL released, as does every run of a pipeline. The library starts no
 * threads of its own: the parallel loop it takes (cg_parallel_fn) is made
 * here of POSIX threads, for the stripes of one big map and for the maps of
 * a batch run side by side. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cavegen/cavegen.h"

/* ------------------------------------------------------------- errors */

static PyObject *Error, *PresetError, *RequirementError, *ArgumentError;

/* Raises the exception of a failed call: the message is the diag's when it
 * has one, else the status's description. */
static PyObject *raise_status(cg_status st, const cg_diag *diag)
{
    const char *msg = diag && diag->message[0] ? diag->message : cg_strerror(st);
    switch (st) {
    case CG_ENOMEM:
        if (diag && diag->message[0])
            PyErr_Format(PyExc_MemoryError, "%s", msg);
        else
            PyErr_NoMemory();
        break;
    case CG_EIO:
        PyErr_Format(PyExc_OSError, "%s", msg);
        break;
    case CG_EINVAL:
        PyErr_Format(ArgumentError, "%s", msg);
        break;
    case CG_EFAIL:
        PyErr_Format(RequirementError, "%s", msg);
        break;
    default:
        PyErr_Format(Error, "%s", msg);
        break;
    }
    return NULL;
}

/* A PresetError for preset text that does not parse, carrying the line and
 * column (1-based) and the bare message; its text reads "NAME:LINE:COL: MSG"
 * as the command's messages do. */
static PyObject *raise_parse(const char *name, const cg_diag *diag)
{
    PyObject *text = PyUnicode_FromFormat("%s:%d:%d: %s", name ? name : "<preset>", diag->line,
                                          diag->column, diag->message);
    PyObject *exc = text ? PyObject_CallOneArg(PresetError, text) : NULL;
    Py_XDECREF(text);
    if (!exc)
        return NULL;
    PyObject *vals[3] = {PyLong_FromLong(diag->line), PyLong_FromLong(diag->column),
                         PyUnicode_FromString(diag->message)};
    const char *keys[3] = {"line", "column", "message"};
    int rc = 0;
    for (int i = 0; i < 3; i++) {
        if (rc == 0 && (!vals[i] || PyObject_SetAttrString(exc, keys[i], vals[i]) < 0))
            rc = -1;
        Py_XDECREF(vals[i]);
    }
    if (rc == 0)
        PyErr_SetObject(PresetError, exc);
    Py_DECREF(exc);
    return NULL;
}

/* ---------------------------------------------------- parallel loops */

/* The cg_parallel_fn of this module: threads (ctx, a count) pull indices
 * from a shared counter, the calling thread among them. Threads are made
 * per call: a big map calls it once a pass, and a thread costs tens of
 * microseconds against milliseconds of work. (A batch of small maps keeps
 * its own threads: see Batch.) */
struct par_loop {
    void (*task)(void *arg, size_t i);
    void *arg;
    size_t n;
    atomic_size_t next;
};

static void *par_worker(void *p)
{
    struct par_loop *loop = p;
    for (;;) {
        size_t i = atomic_fetch_add(&loop->next, 1);
        if (i >= loop->n)
            break;
        loop->task(loop->arg, i);
    }
    return NULL;
}

#define THREADS_MAX 256

static void par_for(void *ctx, size_t n, void (*task)(void *arg, size_t i), void *arg)
{
    unsigned threads = *(const unsigned *)ctx;
    pthread_t tid[THREADS_MAX];
    struct par_loop loop = {task, arg, n, 0};
    size_t started = 0;
    size_t want = threads < n ? threads : n;
    for (size_t t = 1; t < want && t < THREADS_MAX; t++) {
        if (pthread_create(&tid[started], NULL, par_worker, &loop) != 0)
            break; /* fewer threads: the loop still finishes */
        started++;
    }
    par_worker(&loop);
    for (size_t t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

/* jobs as the command's -j: 0 is one thread per online core. */
static int resolve_jobs(long jobs, unsigned *threads)
{
    if (jobs < 0) {
        PyErr_SetString(PyExc_ValueError, "jobs must be 0 (one per core) or more");
        return -1;
    }
    if (jobs == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n > 0 ? n : 1;
    }
    *threads = jobs > THREADS_MAX ? THREADS_MAX : (unsigned)jobs;
    return 0;
}

/* --------------------------------------------------- named tuples */

static PyTypeObject PointType, RegionType;

static PyStructSequence_Field point_fields[] = {
    {"x", "column"},
    {"y", "row"},
    {"symbol", "'*' for a plain point, 'A'..'Z' for a point of a named kind"},
    {"kind", "the kind's name for a letter (the letter itself when unnamed), None for '*'"},
    {NULL, NULL}};
static PyStructSequence_Desc point_desc = {"cavegen.Point", "A point of interest.", point_fields,
                                           4};

static PyStructSequence_Field region_fields[] = {
    {"cells", "floor cells in the region"},
    {"x0", "bounding box: first column"},
    {"y0", "bounding box: first row"},
    {"x1", "bounding box: last column (inclusive)"},
    {"y1", "bounding box: last row (inclusive)"},
    {"first", "(x, y) of its first cell in (y, x) order"},
    {NULL, NULL}};
static PyStructSequence_Desc region_desc = {
    "cavegen.Region", "A 4-connected region of floor (markers count as floor).", region_fields, 6};

/* ------------------------------------------------------------- Map */

typedef struct {
    PyObject_HEAD
    cg_grid *grid;
    uint8_t *cells; /* width * height bytes, row after row */
    Py_ssize_t shape[2], strides[2];
    int has_seed;
    uint64_t seed, run_seed;
    uint32_t attempts;
    long long index;       /* in a batch: the map's index; else -1 */
    PyObject *preset_name; /* str or None */
    PyObject *preset_text; /* bytes or None: what JSON and Tiled maps record */
    int have_stats;
    cg_stats stats;
} MapObject;

static PyTypeObject MapType;

/* What a run made, before it becomes a Map (built without the GIL). */
struct made {
    cg_status st;
    cg_diag diag;
    cg_grid *grid;
    uint8_t *cells;
    cg_run_info info;
    int have_stats;
    cg_stats stats;
};

static int membuf_write(void *ctx, const void *data, size_t len);

struct membuf {
    char *data;
    size_t len, cap;
};

/* The cells of g, one byte each, row after row (cg_grid_copy converts
 * eight cells per table lookup). */
static cg_status copy_cells(const cg_grid *g, uint8_t *cells)
{
    return cg_grid_copy(g, cells, cg_grid_width(g), CG_COPY_CELLS);
}

/* Copies the cells out and, when asked, computes the figures; no GIL. */
static void finish_made(struct made *m, int want_stats)
{
    uint32_t w = cg_grid_width(m->grid), h = cg_grid_height(m->grid);
    m->cells = malloc((size_t)w * h);
    if (!m->cells || copy_cells(m->grid, m->cells) != CG_OK) {
        free(m->cells);
        m->cells = NULL;
        cg_grid_free(m->grid);
        m->grid = NULL;
        m->st = CG_ENOMEM;
        return;
    }
    if (want_stats && cg_grid_stats(m->grid, NULL, &m->stats, NULL) == CG_OK)
        m->have_stats = 1;
}

/* A Map taking ownership of m's grid and cells. */
static PyObject *map_from_made(struct made *m, int has_seed, uint64_t seed, PyObject *name,
                               PyObject *text, long long index)
{
    MapObject *self = PyObject_New(MapObject, &MapType);
    if (!self) {
        cg_grid_free(m->grid);
        free(m->cells);
        return NULL;
    }
    self->grid = m->grid;
    self->cells = m->cells;
    m->grid = NULL;
    m->cells = NULL;
    uint32_t w = cg_grid_width(self->grid), h = cg_grid_height(self->grid);
    self->shape[0] = h;
    self->shape[1] = w;
    self->strides[0] = w;
    self->strides[1] = 1;
    self->has_seed = has_seed;
    self->seed = seed;
    self->run_seed = m->info.seed;
    self->attempts = m->info.attempts;
    self->index = index;
    Py_INCREF(name);
    self->preset_name = name;
    Py_INCREF(text);
    self->preset_text = text;
    self->have_stats = m->have_stats;
    self->stats = m->stats;
    return (PyObject *)self;
}

static void map_dealloc(MapObject *self)
{
    cg_grid_free(self->grid);
    free(self->cells);
    Py_XDECREF(self->preset_name);
    Py_XDECREF(self->preset_text);
    PyObject_Free(self);
}

static int map_getbuffer(MapObject *self, Py_buffer *view, int flags)
{
    if (flags & PyBUF_WRITABLE) {
        PyErr_SetString(PyExc_BufferError, "a cavegen.Map's cells are read-only");
        view->obj = NULL;
        return -1;
    }
    view->buf = self->cells;
    view->obj = (PyObject *)self;
    Py_INCREF(self);
    view->len = self->shape[0] * self->shape[1];
    view->readonly = 1;
    view->itemsize = 1;
    view->format = (flags & PyBUF_FORMAT) ? "B" : NULL;
    view->ndim = 2;
    view->shape = (flags & PyBUF_ND) ? self->shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static PyBufferProcs map_as_buffer = {(getbufferproc)map_getbuffer, NULL};

/* The map's metadata as the library's writers record it. */
static cg_map_info map_info(const MapObject *self)
{
    cg_map_info info = {0};
    info.has_seed = self->has_seed;
    info.seed = self->seed;
    info.run_seed = self->run_seed;
    info.attempts = self->attempts;
    if (self->preset_name != Py_None)
        info.preset_name = PyUnicode_AsUTF8(self->preset_name);
    if (self->preset_text != Py_None) {
        info.preset_text = PyBytes_AS_STRING(self->preset_text);
        info.preset_text_len = (size_t)PyBytes_GET_SIZE(self->preset_text);
    }
    return info;
}

/* The format named by a str, or CG_FORMAT_AUTO for None. */
static int format_arg(PyObject *obj, cg_format *format)
{
    if (obj == Py_None) {
        *format = CG_FORMAT_AUTO;
        return 0;
    }
    const char *name = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    if (!name) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "format must be a str such as 'png', or None");
        return -1;
    }
    if (cg_format_from_name(name, format) != CG_OK) {
        PyErr_Format(ArgumentError, "unknown format '%s' (cavegen.formats() lists them)", name);
        return -1;
    }
    return 0;
}

static int membuf_write(void *ctx, const void *data, size_t len)
{
    struct membuf *b = ctx;
    if (len > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 1 << 14;
        while (cap - b->len < len) {
            if (cap > SIZE_MAX / 2)
                return 1;
            cap *= 2;
        }
        char *grown = realloc(b->data, cap);
        if (!grown)
            return 1;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static int scale_arg(long scale, uint32_t *out)
{
    if (scale < 0 || scale > (long)CG_MAX_SCALE) {
        PyErr_Format(PyExc_ValueError, "scale must be 1..%u (0: the default, %u)", CG_MAX_SCALE,
                     CG_DEFAULT_SCALE);
        return -1;
    }
    *out = (uint32_t)scale;
    return 0;
}

static PyObject *map_encode(MapObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"format", "scale", "columns", NULL};
    PyObject *fmt_obj = NULL;
    long scale = 0, columns = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Oll:encode", names, &fmt_obj, &scale, &columns))
        return NULL;
    cg_format format = CG_FORMAT_ASCII;
    if (fmt_obj && format_arg(fmt_obj, &format) < 0)
        return NULL;
    if (format == CG_FORMAT_AUTO)
        format = CG_FORMAT_ASCII;
    cg_write_options wo = {0};
    wo.format = format;
    if (scale_arg(scale, &wo.scale) < 0)
        return NULL;
    if (columns < 0 || columns > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "columns must be 0 (no limit) or more");
        return NULL;
    }
    wo.columns = (uint32_t)columns;
    cg_map_info info = map_info(self);
    wo.info = &info;
    struct membuf buf = {NULL, 0, 0};
    cg_diag diag = {0};
    cg_status st;
    Py_BEGIN_ALLOW_THREADS
    st = cg_write(self->grid, &wo, membuf_write, &buf, &diag);
    Py_END_ALLOW_THREADS
    if (st == CG_EIO)
        st = CG_ENOMEM; /* the only way the buffer fails */
    if (st != CG_OK) {
        free(buf.data);
        return raise_status(st, &diag);
    }
    PyObject *out = PyBytes_FromStringAndSize(buf.data ? buf.data : "", (Py_ssize_t)buf.len);
    free(buf.data);
    return out;
}

static PyObject *map_text(MapObject *self, cg_format format)
{
    PyObject *args = Py_BuildValue("(s)", cg_format_name(format));
    if (!args)
        return NULL;
    PyObject *bytes = map_encode(self, args, NULL);
    Py_DECREF(args);
    if (!bytes)
        return NULL;
    PyObject *s = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes), "strict");
    Py_DECREF(bytes);
    return s;
}

/* The rows joined by line breaks, without the last one, so that
 * print(m.to_ascii()) prints exactly what the command prints; encode("ascii")
 * gives the bytes with it. */
static PyObject *map_to_ascii(MapObject *self, PyObject *unused)
{
    (void)unused;
    PyObject *text = map_text(self, CG_FORMAT_ASCII);
    if (!text)
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (n > 0 && PyUnicode_READ_CHAR(text, n - 1) == '\n') {
        PyObject *cut = PyUnicode_Substring(text, 0, n - 1);
        Py_DECREF(text);
        return cut;
    }
    return text;
}

static PyObject *map_to_json(MapObject *self, PyObject *unused)
{
    (void)unused;
    return map_text(self, CG_FORMAT_JSON);
}

static PyObject *map_save(MapObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"path", "format", "scale", NULL};
    PyObject *path_obj, *fmt_obj = Py_None, *path_bytes = NULL;
    long scale = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Ol:save", names, &path_obj, &fmt_obj, &scale))
        return NULL;
    if (!PyUnicode_FSConverter(path_obj, &path_bytes))
        return NULL;
    cg_write_options wo = {0};
    if (format_arg(fmt_obj, &wo.format) < 0 || scale_arg(scale, &wo.scale) < 0) {
        Py_DECREF(path_bytes);
        return NULL;
    }
    cg_map_info info = map_info(self);
    wo.info = &info;
    cg_diag diag = {0};
    cg_status st;
    const char *path = PyBytes_AS_STRING(path_bytes);
    Py_BEGIN_ALLOW_THREADS
    st = cg_write_file(self->grid, path, &wo, &diag);
    Py_END_ALLOW_THREADS
    Py_DECREF(path_bytes);
    if (st != CG_OK)
        return raise_status(st, &diag);
    Py_RETURN_NONE;
}

/* The first marker of a kind as (x, y), or None. */
static PyObject *first_marker(MapObject *self, cg_marker kind)
{
    size_t n = cg_grid_marker_count(self->grid);
    for (size_t i = 0; i < n; i++) {
        uint32_t x, y;
        cg_marker k;
        if (cg_grid_marker_at(self->grid, i, &x, &y, &k) == CG_OK && k == kind)
            return Py_BuildValue("(II)", x, y);
    }
    Py_RETURN_NONE;
}

static PyObject *map_get_entrance(MapObject *self, void *unused)
{
    (void)unused;
    return first_marker(self, CG_MARK_ENTRANCE);
}

static PyObject *map_get_exit(MapObject *self, void *unused)
{
    (void)unused;
    return first_marker(self, CG_MARK_EXIT);
}

static PyObject *point_new(const cg_grid *g, uint32_t x, uint32_t y)
{
    char sym = cg_grid_marker_symbol(g, x, y);
    const char *kind = cg_grid_point_kind_name(g, sym);
    PyObject *p = PyStructSequence_New(&PointType);
    if (!p)
        return NULL;
    PyObject *vals[4] = {PyLong_FromUnsignedLong(x), PyLong_FromUnsignedLong(y),
                         PyUnicode_FromStringAndSize(&sym, 1),
                         kind ? PyUnicode_FromString(kind) : Py_NewRef(Py_None)};
    for (int i = 0; i < 4; i++) {
        if (!vals[i]) {
            for (int j = 0; j < 4; j++)
                Py_XDECREF(vals[j]);
            Py_DECREF(p);
            return NULL;
        }
    }
    for (int i = 0; i < 4; i++)
        PyStructSequence_SET_ITEM(p, i, vals[i]);
    return p;
}

/* The markers of a kind in (y, x) order: Points for points of interest,
 * (x, y) for the others. */
static PyObject *marker_list(MapObject *self, cg_marker kind)
{
    PyObject *list = PyList_New(0);
    size_t n = cg_grid_marker_count(self->grid);
    for (size_t i = 0; list && i < n; i++) {
        uint32_t x, y;
        cg_marker k;
        if (cg_grid_marker_at(self->grid, i, &x, &y, &k) != CG_OK || k != kind)
            continue;
        PyObject *item = kind == CG_MARK_POI ? point_new(self->grid, x, y)
                                             : Py_BuildValue("(II)", x, y);
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(item);
    }
    return list;
}

static PyObject *map_get_points(MapObject *self, void *unused)
{
    (void)unused;
    return marker_list(self, CG_MARK_POI);
}

static PyObject *map_get_blocked(MapObject *self, void *unused)
{
    (void)unused;
    return marker_list(self, CG_MARK_BLOCKED);
}

static PyObject *map_get_markers(MapObject *self, void *unused)
{
    (void)unused;
    PyObject *list = PyList_New(0);
    size_t n = cg_grid_marker_count(self->grid);
    for (size_t i = 0; list && i < n; i++) {
        uint32_t x, y;
        cg_marker k;
        if (cg_grid_marker_at(self->grid, i, &x, &y, &k) != CG_OK)
            continue;
        char sym = cg_grid_marker_symbol(self->grid, x, y);
        PyObject *item = Py_BuildValue("(IIs#)", x, y, &sym, (Py_ssize_t)1);
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(item);
    }
    return list;
}

static int ensure_stats(MapObject *self)
{
    if (self->have_stats)
        return 0;
    cg_diag diag = {0};
    cg_status st;
    Py_BEGIN_ALLOW_THREADS
    st = cg_grid_stats(self->grid, NULL, &self->stats, &diag);
    Py_END_ALLOW_THREADS
    if (st != CG_OK) {
        raise_status(st, &diag);
        return -1;
    }
    self->have_stats = 1;
    return 0;
}

static int dict_set(PyObject *d, const char *key, PyObject *value)
{
    if (!value)
        return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

/* The --stats figures, with the command's keys in its order. */
static PyObject *map_get_stats(MapObject *self, void *unused)
{
    (void)unused;
    if (ensure_stats(self) < 0)
        return NULL;
    const cg_stats *s = &self->stats;
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    uint64_t permille = s->floor * 1000 / ((uint64_t)s->width * s->height);
    if (dict_set(d, "width", PyLong_FromUnsignedLong(s->width)) < 0 ||
        dict_set(d, "height", PyLong_FromUnsignedLong(s->height)) < 0 ||
        dict_set(d, "floor", PyLong_FromUnsignedLongLong(s->floor)) < 0 ||
        dict_set(d, "floor_permille", PyLong_FromUnsignedLongLong(permille)) < 0 ||
        dict_set(d, "regions", PyLong_FromUnsignedLongLong(s->regions)) < 0 ||
        dict_set(d, "largest_region", PyLong_FromUnsignedLongLong(s->largest_region)) < 0 ||
        dict_set(d, "dead_ends", PyLong_FromUnsignedLongLong(s->dead_ends)) < 0 ||
        dict_set(d, "points", PyLong_FromUnsignedLongLong(s->points)) < 0 ||
        dict_set(d, "path_length", PyLong_FromLongLong(s->path_length)) < 0 ||
        dict_set(d, "attempts", PyLong_FromUnsignedLong(self->attempts)) < 0 ||
        dict_set(d, "seed",
                 self->has_seed ? PyLong_FromUnsignedLongLong(self->seed) : Py_NewRef(Py_None)) < 0 ||
        dict_set(d, "run_seed", self->has_seed ? PyLong_FromUnsignedLongLong(self->run_seed)
                                               : Py_NewRef(Py_None)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* An (x, y) pair of ints inside the map. */
static int point_arg(MapObject *self, PyObject *obj, cg_point *p, const char *what)
{
    unsigned long long x, y;
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq || PySequence_Fast_GET_SIZE(seq) != 2) {
        Py_XDECREF(seq);
        PyErr_Format(PyExc_TypeError, "%s must be an (x, y) pair", what);
        return -1;
    }
    x = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, 0));
    y = PyErr_Occurred() ? 0 : PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, 1));
    Py_DECREF(seq);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be an (x, y) pair of cells of the map", what);
        return -1;
    }
    if (x >= (unsigned long long)self->shape[1] || y >= (unsigned long long)self->shape[0]) {
        PyErr_Format(PyExc_ValueError, "%s (%llu, %llu) is outside the %zdx%zd map", what, x, y,
                     self->shape[1], self->shape[0]);
        return -1;
    }
    p->x = (uint32_t)x;
    p->y = (uint32_t)y;
    return 0;
}

/* A marker's cell (the entrance or the exit), for default ends. */
static int marker_point(MapObject *self, cg_marker kind, cg_point *p, const char *what)
{
    size_t n = cg_grid_marker_count(self->grid);
    for (size_t i = 0; i < n; i++) {
        uint32_t x, y;
        cg_marker k;
        if (cg_grid_marker_at(self->grid, i, &x, &y, &k) == CG_OK && k == kind) {
            p->x = x;
            p->y = y;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "the map has no %s: give one", what);
    return -1;
}

static PyObject *map_path(MapObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"start", "goal", NULL};
    PyObject *a = Py_None, *b = Py_None;
    cg_point from, to;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:path", names, &a, &b))
        return NULL;
    if ((a == Py_None ? marker_point(self, CG_MARK_ENTRANCE, &from, "entrance")
                      : point_arg(self, a, &from, "start")) < 0 ||
        (b == Py_None ? marker_point(self, CG_MARK_EXIT, &to, "exit")
                      : point_arg(self, b, &to, "goal")) < 0)
        return NULL;
    size_t cap = 4096, len = 0;
    cg_point *path = NULL;
    cg_status st;
    cg_diag diag = {0};
    for (;;) {
        cg_point *grown = realloc(path, cap * sizeof *path);
        if (!grown) {
            free(path);
            return PyErr_NoMemory();
        }
        path = grown;
        Py_BEGIN_ALLOW_THREADS
        st = cg_grid_path(self->grid, from, to, path, cap, &len, &diag);
        Py_END_ALLOW_THREADS
        if (st != CG_EOVERFLOW || len <= cap)
            break;
        cap = len;
    }
    if (st != CG_OK) {
        free(path);
        return raise_status(st, &diag);
    }
    PyObject *list = PyList_New((Py_ssize_t)len);
    for (size_t i = 0; list && i < len; i++) {
        PyObject *item = Py_BuildValue("(II)", path[i].x, path[i].y);
        if (!item) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    free(path);
    return list;
}

/* A bytearray of height x width uint32 viewed as a 2-D memoryview 'I'. */
static PyObject *u32_view(PyObject *bytearray, Py_ssize_t h, Py_ssize_t w)
{
    PyObject *mv = PyMemoryView_FromObject(bytearray);
    Py_DECREF(bytearray);
    if (!mv)
        return NULL;
    PyObject *shape = Py_BuildValue("(nn)", h, w);
    PyObject *cast = shape ? PyObject_CallMethod(mv, "cast", "sO", "I", shape) : NULL;
    Py_XDECREF(shape);
    Py_DECREF(mv);
    return cast;
}

static PyObject *map_regions(MapObject *self, PyObject *unused)
{
    (void)unused;
    size_t count = 0;
    cg_diag diag = {0};
    cg_status st;
    cg_region *regs = NULL;
    Py_BEGIN_ALLOW_THREADS
    st = cg_grid_regions(self->grid, NULL, 0, NULL, 0, &count, &diag);
    if (st == CG_EOVERFLOW || (st == CG_OK && count > 0)) {
        regs = malloc((count ? count : 1) * sizeof *regs);
        st = regs ? cg_grid_regions(self->grid, NULL, 0, regs, count, &count, &diag) : CG_ENOMEM;
    }
    Py_END_ALLOW_THREADS
    if (st != CG_OK) {
        free(regs);
        return raise_status(st, &diag);
    }
    PyObject *list = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; list && i < count; i++) {
        const cg_region *r = &regs[i];
        PyObject *item = PyStructSequence_New(&RegionType);
        PyObject *vals[6] = {PyLong_FromUnsignedLongLong(r->cells), PyLong_FromUnsignedLong(r->x0),
                             PyLong_FromUnsignedLong(r->y0),        PyLong_FromUnsignedLong(r->x1),
                             PyLong_FromUnsignedLong(r->y1),
                             Py_BuildValue("(II)", r->first.x, r->first.y)};
        int ok = item != NULL;
        for (int j = 0; j < 6; j++)
            ok = ok && vals[j];
        if (!ok) {
            for (int j = 0; j < 6; j++)
                Py_XDECREF(vals[j]);
            Py_XDECREF(item);
            Py_CLEAR(list);
            break;
        }
        for (int j = 0; j < 6; j++)
            PyStructSequence_SET_ITEM(item, j, vals[j]);
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    free(regs);
    return list;
}

static PyObject *map_region_labels(MapObject *self, PyObject *unused)
{
    (void)unused;
    Py_ssize_t h = self->shape[0], w = self->shape[1];
    PyObject *ba = PyByteArray_FromStringAndSize(NULL, h * w * 4);
    if (!ba)
        return NULL;
    uint32_t *labels = (uint32_t *)PyByteArray_AS_STRING(ba);
    size_t count = 0;
    cg_diag diag = {0};
    cg_status st;
    Py_BEGIN_ALLOW_THREADS
    st = cg_grid_regions(self->grid, labels, (size_t)w, NULL, 0, &count, &diag);
    Py_END_ALLOW_THREADS
    if (st != CG_OK && st != CG_EOVERFLOW) {
        Py_DECREF(ba);
        return raise_status(st, &diag);
    }
    return u32_view(ba, h, w);
}

/* Appends the starts of obj: "entrance", an (x, y) pair, or a sequence of
 * those. */
static int add_starts(MapObject *self, PyObject *obj, cg_point **starts, size_t *n, size_t *cap,
                      int depth)
{
    cg_point p;
    if (PyUnicode_Check(obj)) {
        if (PyUnicode_CompareWithASCIIString(obj, "entrance") != 0) {
            PyErr_SetString(PyExc_ValueError, "a start is (x, y) or 'entrance'");
            return -1;
        }
        if (marker_point(self, CG_MARK_ENTRANCE, &p, "entrance") < 0)
            return -1;
    } else {
        PyObject *seq = PySequence_Fast(obj, "starts must be (x, y), 'entrance' or a list of them");
        if (!seq)
            return -1;
        Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
        int pair = len == 2 && PyLong_Check(PySequence_Fast_GET_ITEM(seq, 0));
        if (!pair) {
            int rc = 0;
            if (depth > 0) {
                PyErr_SetString(PyExc_TypeError, "a start is (x, y) or 'entrance'");
                rc = -1;
            }
            for (Py_ssize_t i = 0; rc == 0 && i < len; i++)
                rc = add_starts(self, PySequence_Fast_GET_ITEM(seq, i), starts, n, cap, depth + 1);
            Py_DECREF(seq);
            return rc;
        }
        Py_DECREF(seq);
        if (point_arg(self, obj, &p, "a start") < 0)
            return -1;
    }
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        cg_point *grown = realloc(*starts, c * sizeof *grown);
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        *starts = grown;
        *cap = c;
    }
    (*starts)[(*n)++] = p;
    return 0;
}

static PyObject *map_reach(MapObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"starts", "moves", NULL};
    PyObject *starts_obj = NULL, *moves_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:reach", names, &starts_obj, &moves_obj))
        return NULL;
    uint32_t moves = CG_MOVES_UNLIMITED;
    if (moves_obj != Py_None) {
        long long m = PyLong_AsLongLong(moves_obj);
        if (m == -1 && PyErr_Occurred())
            return NULL;
        if (m < 0 || m >= (long long)CG_MOVES_UNLIMITED) {
            PyErr_SetString(PyExc_ValueError, "moves must be 0 or more, or None for no limit");
            return NULL;
        }
        moves = (uint32_t)m;
    }
    cg_point *starts = NULL;
    size_t n = 0, cap = 0;
    PyObject *entrance = NULL;
    if (!starts_obj)
        starts_obj = entrance = PyUnicode_FromString("entrance");
    int rc = starts_obj ? add_starts(self, starts_obj, &starts, &n, &cap, 0) : -1;
    Py_XDECREF(entrance);
    if (rc < 0) {
        free(starts);
        return NULL;
    }
    if (n == 0) {
        free(starts);
        PyErr_SetString(PyExc_ValueError, "reach needs at least one start");
        return NULL;
    }
    Py_ssize_t h = self->shape[0], w = self->shape[1];
    PyObject *ba = PyByteArray_FromStringAndSize(NULL, h * w * 4);
    if (!ba) {
        free(starts);
        return NULL;
    }
    uint32_t *dist = (uint32_t *)PyByteArray_AS_STRING(ba);
    cg_diag diag = {0};
    cg_status st;
    Py_BEGIN_ALLOW_THREADS
    st = cg_grid_distances(self->grid, starts, n, moves, dist, (size_t)w, NULL, &diag);
    Py_END_ALLOW_THREADS
    free(starts);
    if (st != CG_OK) {
        Py_DECREF(ba);
        return raise_status(st, &diag);
    }
    return u32_view(ba, h, w);
}

static PyObject *map_get_width(MapObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromSsize_t(self->shape[1]);
}

static PyObject *map_get_height(MapObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromSsize_t(self->shape[0]);
}

static PyObject *map_get_shape(MapObject *self, void *unused)
{
    (void)unused;
    return Py_BuildValue("(nn)", self->shape[0], self->shape[1]);
}

static PyObject *map_get_cells(MapObject *self, void *unused)
{
    (void)unused;
    return PyMemoryView_FromObject((PyObject *)self);
}

static PyObject *map_get_seed(MapObject *self, void *unused)
{
    (void)unused;
    if (!self->has_seed)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(self->seed);
}

static PyObject *map_get_run_seed(MapObject *self, void *unused)
{
    (void)unused;
    if (!self->has_seed)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(self->run_seed);
}

static PyObject *map_get_attempts(MapObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLong(self->attempts);
}

static PyObject *map_get_index(MapObject *self, void *unused)
{
    (void)unused;
    if (self->index < 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong(self->index);
}

static PyObject *map_get_preset(MapObject *self, void *unused)
{
    (void)unused;
    return Py_NewRef(self->preset_name);
}

static PyObject *map_get_preset_text(MapObject *self, void *unused)
{
    (void)unused;
    if (self->preset_text == Py_None)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(PyBytes_AS_STRING(self->preset_text),
                                PyBytes_GET_SIZE(self->preset_text), "replace");
}

static PyObject *map_repr(MapObject *self)
{
    if (self->has_seed)
        return PyUnicode_FromFormat("<cavegen.Map %zdx%zd preset=%R seed=%llu>", self->shape[1],
                                    self->shape[0], self->preset_name,
                                    (unsigned long long)self->seed);
    return PyUnicode_FromFormat("<cavegen.Map %zdx%zd preset=%R>", self->shape[1], self->shape[0],
                                self->preset_name);
}

static PyMethodDef map_methods[] = {
    {"path", (PyCFunction)(void (*)(void))map_path, METH_VARARGS | METH_KEYWORDS,
     "path(start=None, goal=None) -> list[tuple[int, int]]\n\n"
     "The shortest 4-neighbour path from start (default: the entrance) to goal\n"
     "(default: the exit), both ends included, never through a wall or a\n"
     "blocked cell; [] when goal cannot be reached. Of the shortest paths it is\n"
     "always the same one (cg_grid_path)."},
    {"regions", (PyCFunction)map_regions, METH_NOARGS,
     "regions() -> list[Region]\n\n"
     "The 4-connected floor regions in the order of their first cells;\n"
     "markers and blocked cells count as floor."},
    {"region_labels", (PyCFunction)map_region_labels, METH_NOARGS,
     "region_labels() -> memoryview\n\n"
     "A (height, width) uint32 array: 1 + the index in regions() of each\n"
     "cell's region, 0 for a wall."},
    {"reach", (PyCFunction)(void (*)(void))map_reach, METH_VARARGS | METH_KEYWORDS,
     "reach(starts='entrance', moves=None) -> memoryview\n\n"
     "Distances in 4-neighbour moves from the nearest start, within moves\n"
     "(None: no limit), never entering walls or blocked cells: a (height,\n"
     "width) uint32 array, cavegen.UNREACHED where no start reaches. starts is\n"
     "(x, y), 'entrance', or a list of them."},
    {"encode", (PyCFunction)(void (*)(void))map_encode, METH_VARARGS | METH_KEYWORDS,
     "encode(format='ascii', scale=0, columns=0) -> bytes\n\n"
     "The map in a format of cavegen.formats(), as the command writes it;\n"
     "scale: PNG and PBM pixels per cell (0: 4); columns: the widest ANSI\n"
     "picture in characters (0: no limit)."},
    {"to_ascii", (PyCFunction)map_to_ascii, METH_NOARGS,
     "to_ascii() -> str\n\nThe ASCII map: '#' wall, '.' floor, '<' '>' '*' 'A'-'Z' 'x' markers;\n"
     "the rows joined by line breaks, so print(m.to_ascii()) prints what the command prints."},
    {"to_json", (PyCFunction)map_to_json, METH_NOARGS,
     "to_json() -> str\n\nThe JSON map (docs/formats.md): rows, seed, preset, markers, stats."},
    {"save", (PyCFunction)(void (*)(void))map_save, METH_VARARGS | METH_KEYWORDS,
     "save(path, format=None, scale=0) -> None\n\n"
     "Writes the map to path atomically, in format or the one its extension\n"
     "names (no extension: ASCII), as the command's -o does; a Tiled map gets\n"
     "its tileset image beside it."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef map_getset[] = {
    {"width", (getter)map_get_width, NULL, "Columns.", NULL},
    {"height", (getter)map_get_height, NULL, "Rows.", NULL},
    {"shape", (getter)map_get_shape, NULL, "(height, width), as numpy.asarray(map).shape.", NULL},
    {"cells", (getter)map_get_cells, NULL,
     "The cells as a read-only 2-D memoryview of uint8 (0 floor, 1 wall), [y, x].", NULL},
    {"entrance", (getter)map_get_entrance, NULL, "(x, y) of the entrance, or None.", NULL},
    {"exit", (getter)map_get_exit, NULL, "(x, y) of the exit, or None.", NULL},
    {"points", (getter)map_get_points, NULL, "The points of interest, in (y, x) order.", NULL},
    {"blocked", (getter)map_get_blocked, NULL, "(x, y) of the occupied cells, in (y, x) order.",
     NULL},
    {"markers", (getter)map_get_markers, NULL,
     "Every marker as (x, y, symbol), in (y, x) order.", NULL},
    {"stats", (getter)map_get_stats, NULL,
     "The command's --stats figures as a dict, with its keys.", NULL},
    {"seed", (getter)map_get_seed, NULL, "The seed the map was made with (None: none).", NULL},
    {"run_seed", (getter)map_get_run_seed, NULL,
     "The seed of the attempt that succeeded: it makes the map in one attempt.", NULL},
    {"attempts", (getter)map_get_attempts, NULL, "Attempts the run took.", NULL},
    {"index", (getter)map_get_index, NULL, "The map's index in a batch, else None.", NULL},
    {"preset", (getter)map_get_preset, NULL, "The preset's name, or None.", NULL},
    {"preset_text", (getter)map_get_preset_text, NULL, "The pipeline as preset text.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject MapType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cavegen.Map",
    .tp_basicsize = sizeof(MapObject),
    .tp_dealloc = (destructor)map_dealloc,
    .tp_repr = (reprfunc)map_repr,
    .tp_as_buffer = &map_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A generated map: cells through the buffer protocol (numpy.asarray(map) is a\n"
              "read-only (height, width) uint8 view: 0 floor, 1 wall), markers, figures,\n"
              "searches and writers. Made by cavegen.generate, Pipeline.run and\n"
              "cavegen.batch; it never changes.",
    .tp_methods = map_methods,
    .tp_getset = map_getset,
};

/* -------------------------------------------------------- Pipeline */

typedef struct {
    PyObject_HEAD
    cg_pipeline *p;
    PyObject *name; /* str or None */
    PyObject *text; /* bytes, ending in a line break unless empty */
} PipelineObject;

static int pipeline_init(PipelineObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"text", "name", NULL};
    const char *text;
    Py_ssize_t len;
    PyObject *name = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|O:Pipeline", names, &text, &len, &name))
        return -1;
    if (name != Py_None && !PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "name must be a str or None");
        return -1;
    }
    /* Runs read the pipeline without the GIL: it never changes once made. */
    if (self->p) {
        PyErr_SetString(PyExc_TypeError, "a Pipeline cannot be changed: make a new one");
        return -1;
    }
    cg_pipeline *p = NULL;
    if (cg_pipeline_new(&p) != CG_OK) {
        PyErr_NoMemory();
        return -1;
    }
    cg_diag diag = {0};
    cg_status st = cg_pipeline_parse(p, text, (size_t)len, &diag);
    if (st != CG_OK) {
        cg_pipeline_free(p);
        if (st == CG_EPARSE)
            raise_parse(name == Py_None ? NULL : PyUnicode_AsUTF8(name), &diag);
        else
            raise_status(st, &diag);
        return -1;
    }
    /* Recorded as the command records it: a last line without its break
     * gets one. */
    int nl = len > 0 && text[len - 1] != '\n';
    PyObject *kept = PyBytes_FromStringAndSize(NULL, len + nl);
    if (!kept) {
        cg_pipeline_free(p);
        return -1;
    }
    memcpy(PyBytes_AS_STRING(kept), text, (size_t)len);
    if (nl)
        PyBytes_AS_STRING(kept)[len] = '\n';
    cg_pipeline_free(self->p);
    self->p = p;
    Py_XSETREF(self->text, kept);
    Py_INCREF(name);
    Py_XSETREF(self->name, name);
    return 0;
}

static void pipeline_dealloc(PipelineObject *self)
{
    cg_pipeline_free(self->p);
    Py_XDECREF(self->name);
    Py_XDECREF(self->text);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int pipeline_ready(PipelineObject *self)
{
    if (self->p)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "Pipeline.__init__ was not called");
    return -1;
}

/* A seed argument: an int taken mod 2^64 as the command does, or None for
 * one drawn from the system when the pipeline uses one (os.urandom). */
static int seed_arg(PipelineObject *self, PyObject *obj, uint64_t *seed, int *has_seed)
{
    if (obj == Py_None || !obj) {
        *seed = 0;
        *has_seed = 0;
        if (!cg_pipeline_uses_seed(self->p))
            return 0;
        PyObject *os = PyImport_ImportModule("os");
        PyObject *bytes = os ? PyObject_CallMethod(os, "urandom", "i", 8) : NULL;
        Py_XDECREF(os);
        if (!bytes)
            return -1;
        for (int i = 0; i < 8; i++)
            *seed = *seed << 8 | (uint8_t)PyBytes_AS_STRING(bytes)[i];
        Py_DECREF(bytes);
        *has_seed = 1;
        return 0;
    }
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "seed must be an int or None");
        return -1;
    }
    *seed = PyLong_AsUnsignedLongLong(obj);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "seed must be 0 .. 2**64 - 1");
        return -1;
    }
    *has_seed = 1;
    return 0;
}

/* A size argument: (width, height), or None for the pipeline's default. */
static int size_arg(PyObject *obj, uint32_t *w, uint32_t *h)
{
    *w = *h = 0;
    if (!obj || obj == Py_None)
        return 0;
    unsigned long long a, b;
    PyObject *seq = PySequence_Fast(obj, "size must be (width, height) or None");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 2) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_TypeError, "size must be (width, height) or None");
        return -1;
    }
    a = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, 0));
    b = PyErr_Occurred() ? 0 : PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, 1));
    Py_DECREF(seq);
    if (PyErr_Occurred() || a < 1 || b < 1 || a > CG_MAX_DIM || b > CG_MAX_DIM) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "size must be (width, height), each 1..%u", CG_MAX_DIM);
        return -1;
    }
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return 0;
}

static int attempts_arg(long attempts, uint32_t *out)
{
    if (attempts < 0 || attempts > (long)CG_MAX_ATTEMPTS) {
        PyErr_Format(PyExc_ValueError, "max_attempts must be 1..%u (0: the default, %u)",
                     CG_MAX_ATTEMPTS, CG_DEFAULT_ATTEMPTS);
        return -1;
    }
    *out = (uint32_t)attempts;
    return 0;
}

static PyObject *pipeline_run(PipelineObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"seed", "size", "max_attempts", "jobs", NULL};
    PyObject *seed_obj = Py_None, *size_obj = Py_None;
    long attempts = 0, jobs = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO$ll:run", names, &seed_obj, &size_obj,
                                     &attempts, &jobs))
        return NULL;
    cg_run_options ro = {0};
    int has_seed;
    unsigned threads;
    if (pipeline_ready(self) < 0 || seed_arg(self, seed_obj, &ro.seed, &has_seed) < 0 ||
        size_arg(size_obj, &ro.width, &ro.height) < 0 ||
        attempts_arg(attempts, &ro.max_attempts) < 0 || resolve_jobs(jobs, &threads) < 0)
        return NULL;
    if (threads > 1) {
        /* One map: its passes in stripes of rows among the threads. */
        ro.parallel = par_for;
        ro.parallel_ctx = &threads;
    }
    struct made m = {0};
    m.info.seed = ro.seed;
    Py_BEGIN_ALLOW_THREADS
    m.st = cg_pipeline_run(self->p, &ro, &m.grid, &m.info, &m.diag);
    if (m.st == CG_OK)
        finish_made(&m, 0);
    Py_END_ALLOW_THREADS
    if (m.st != CG_OK)
        return raise_status(m.st, &m.diag);
    return map_from_made(&m, has_seed, ro.seed, self->name, self->text, -1);
}

static PyObject *pipeline_get_name(PipelineObject *self, void *unused)
{
    (void)unused;
    return Py_NewRef(self->name ? self->name : Py_None);
}

static PyObject *pipeline_get_text(PipelineObject *self, void *unused)
{
    (void)unused;
    if (!self->text)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(PyBytes_AS_STRING(self->text), PyBytes_GET_SIZE(self->text),
                                "replace");
}

static PyObject *pipeline_get_steps(PipelineObject *self, void *unused)
{
    (void)unused;
    if (pipeline_ready(self) < 0)
        return NULL;
    return PyLong_FromSize_t(cg_pipeline_step_count(self->p));
}

static PyObject *pipeline_get_default_size(PipelineObject *self, void *unused)
{
    (void)unused;
    uint32_t w, h;
    if (pipeline_ready(self) < 0)
        return NULL;
    cg_pipeline_default_size(self->p, &w, &h);
    return Py_BuildValue("(II)", w, h);
}

static PyObject *pipeline_get_min_size(PipelineObject *self, void *unused)
{
    (void)unused;
    uint32_t w, h;
    if (pipeline_ready(self) < 0)
        return NULL;
    cg_pipeline_min_size(self->p, &w, &h);
    return Py_BuildValue("(II)", w, h);
}

static PyObject *pipeline_get_uses_seed(PipelineObject *self, void *unused)
{
    (void)unused;
    if (pipeline_ready(self) < 0)
        return NULL;
    return PyBool_FromLong(cg_pipeline_uses_seed(self->p));
}

static PyObject *pipeline_repr(PipelineObject *self)
{
    return PyUnicode_FromFormat("<cavegen.Pipeline %R, %zu steps>",
                                self->name ? self->name : Py_None,
                                self->p ? cg_pipeline_step_count(self->p) : (size_t)0);
}

static PyMethodDef pipeline_methods[] = {
    {"run", (PyCFunction)(void (*)(void))pipeline_run, METH_VARARGS | METH_KEYWORDS,
     "run(seed=None, size=None, *, max_attempts=0, jobs=1) -> Map\n\n"
     "Runs the pipeline: seed (None: one drawn from os.urandom, recorded in\n"
     "map.seed), size (width, height) (None: the pipeline's default),\n"
     "max_attempts for the requirements (0: 100), jobs threads for the\n"
     "stripes of one big map (0: one per core). The GIL is released while it\n"
     "runs. RequirementError when every attempt failed a requirement."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef pipeline_getset[] = {
    {"name", (getter)pipeline_get_name, NULL, "The preset's name, recorded in JSON and Tiled maps.",
     NULL},
    {"text", (getter)pipeline_get_text, NULL, "The preset text, as maps record it.", NULL},
    {"steps", (getter)pipeline_get_steps, NULL, "The number of steps (size lines aside).", NULL},
    {"default_size", (getter)pipeline_get_default_size, NULL,
     "(width, height) when no size is given.", NULL},
    {"min_size", (getter)pipeline_get_min_size, NULL,
     "The smallest (width, height) it runs on.", NULL},
    {"uses_seed", (getter)pipeline_get_uses_seed, NULL, "Whether the seed changes the map.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject PipelineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cavegen.Pipeline",
    .tp_basicsize = sizeof(PipelineObject),
    .tp_dealloc = (destructor)pipeline_dealloc,
    .tp_repr = (reprfunc)pipeline_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Pipeline(text, name=None)\n\n"
              "A pipeline parsed from preset text (docs/presets.md). Text that does not\n"
              "parse raises PresetError, with line and column. name is recorded in the\n"
              "maps' JSON and Tiled metadata, as the command records -p NAME.",
    .tp_methods = pipeline_methods,
    .tp_getset = pipeline_getset,
    .tp_init = (initproc)pipeline_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------ Batch */

/* A batch makes its maps ahead of the caller on threads that last as long
 * as the batch has maps to make: jobs - 1 worker threads, and the calling
 * thread, which makes maps too (with the GIL released) whenever the next
 * one it is to hand out is not ready, and otherwise turns made maps into
 * Map objects while the workers go on. Map i goes to slot i % ring of a
 * ring of slots; a thread claims the next chunk of indices only while the
 * chunk fits in the ring beside the maps not yet handed out. Maps are
 * handed out in index order, and which thread made a map never changes it.
 *
 * The design is about malloc's memory, which costs more than the maps on
 * a machine where a page fault costs 12-14 us. glibc gives each thread a
 * heap (arena) and gives the top of a heap back to the system (trims it)
 * once 128 KiB or more of it is free; memory is then faulted in again
 * when it is next used. So:
 * - each thread frees only what it allocated: a map a worker made is
 *   copied by the calling thread into memory of its own (the grid cloned,
 *   the cells copied, about 6 KB for 80x50) and the worker frees its
 *   original once the caller has moved past it (struct worker's kept
 *   list), two before each map it makes, so that its frees and
 *   allocations alternate;
 * - chunks hold at most CHUNK_BYTES of maps, under the trim threshold, so
 *   that a chunk made at once and then dropped map by map does not empty
 *   the top of a heap;
 * - the threads are made once a batch, not once a group of maps: a new
 *   thread's stack is faulted in again.
 * Rounds of 1,024 maps on threads made for each round, with every map
 * freed by the Python thread, emptied the workers' heaps every round: 8
 * times the page faults of one thread, and all cores slower than one
 * (docs/python.md, "Tests and speed").
 *
 * Maps of HUGE_CELLS cells or more are made one at a time by the calling
 * thread, each split in stripes of rows among jobs threads. */
#define RING_BYTES (UINT64_C(1) << 26) /* at most this much of maps in the ring */
#define CHUNK_BYTES 65536u             /* at most this much of maps claimed at once */
#define RING_CHUNKS 4u                 /* chunks a thread in the ring */
#define HUGE_CELLS (UINT64_C(1) << 22)

struct slot {
    struct made m;
    int lent;                   /* m's grid and cells belong to a worker (its kept list) */
    atomic_uint_fast64_t ready; /* 1 + the index of the map in m, once made */
};

/* A worker's maps, kept (in index order) until the caller has copied them:
 * the worker frees them itself. */
struct kept {
    uint64_t index;
    cg_grid *grid;
    uint8_t *cells;
};

struct worker {
    pthread_t tid;
    struct BatchObject *batch;
    struct kept *kept; /* a circular list of cap */
    size_t first, len, cap;
};

typedef struct BatchObject {
    PyObject_HEAD
    PipelineObject *pipeline;
    uint64_t seed, count; /* map i has seed + i (mod 2^64) */
    int has_seed;
    uint32_t width, height, max_attempts;
    unsigned threads;
    int want_stats, keep_going, done;
    int split;   /* huge maps: one at a time, in stripes */
    int busy;    /* the caller waits or makes maps without the GIL */
    int started; /* the workers have been started */
    unsigned forks; /* fork_count when they were */
    struct slot *ring;
    uint64_t ring_len, chunk, wake_every;
    /* Shared with the workers. mu guards claimed, stop and the waits;
     * taken and the slots' ready are also read without it. */
    pthread_mutex_t mu;
    pthread_cond_t room;      /* workers wait here for a chunk to fit */
    pthread_cond_t made_cond; /* the caller waits here for its next map */
    uint64_t claimed;         /* maps claimed by a thread: the next chunk starts here */
    atomic_uint_fast64_t taken;   /* maps handed out or skipped by the caller */
    atomic_uint_fast64_t wanted;  /* 1 + the map the caller waits for, 0: none */
    atomic_uint sleepers;         /* workers waiting for room */
    atomic_int stop;              /* set: the workers claim no more */
    struct worker *worker; /* threads - 1 of them, once started */
    unsigned workers;      /* started */
} BatchObject;

/* Forks so far (a pthread_atfork handler in the child counts them): a
 * batch tells from it that its workers are gone (batch_after_fork). */
static atomic_uint fork_count;

static void count_fork(void)
{
    atomic_fetch_add(&fork_count, 1);
}

/* Makes map i into its slot (which the caller has emptied), then wakes the
 * caller if it waits for this one. h: the worker making it, NULL for the
 * calling thread. No GIL. */
static void batch_make(BatchObject *b, struct worker *h, uint64_t i)
{
    struct slot *s = &b->ring[i % b->ring_len];
    struct made *m = &s->m;
    cg_run_options ro = {0};
    ro.seed = b->seed + i;
    ro.width = b->width;
    ro.height = b->height;
    ro.max_attempts = b->max_attempts;
    if (b->split && b->threads > 1) {
        ro.parallel = par_for;
        ro.parallel_ctx = &b->threads;
    }
    memset(m, 0, sizeof *m);
    m->info.seed = ro.seed;
    m->st = cg_pipeline_run(b->pipeline->p, &ro, &m->grid, &m->info, &m->diag);
    if (m->st == CG_OK)
        finish_made(m, b->want_stats);
    s->lent = h && m->grid;
    if (s->lent) { /* room: see batch_worker */
        struct kept *k = &h->kept[(h->first + h->len++) % h->cap];
        k->index = i;
        k->grid = m->grid;
        k->cells = m->cells;
    }
    /* The ready store and the caller's wanted store are sequentially
     * consistent: either the caller sees the map ready before it sleeps,
     * or this thread sees it waiting and wakes it under the lock. */
    atomic_store(&s->ready, i + 1);
    if (atomic_load(&b->wanted) == i + 1) {
        pthread_mutex_lock(&b->mu);
        pthread_cond_signal(&b->made_cond);
        pthread_mutex_unlock(&b->mu);
    }
}

/* Frees up to max of a worker's kept maps below index end. */
static void worker_free_kept(struct worker *h, uint64_t end, size_t max)
{
    for (; max && h->len && h->kept[h->first].index < end; max--) {
        cg_grid_free(h->kept[h->first].grid);
        free(h->kept[h->first].cells);
        h->first = (h->first + 1) % h->cap;
        h->len--;
    }
}

/* Under mu: whether the next chunk may be claimed now (it fits in the ring
 * beside the maps not yet handed out). */
static int batch_room(BatchObject *b)
{
    return b->claimed + b->chunk <= atomic_load(&b->taken) + b->ring_len;
}

/* Under mu: claims the next chunk, [*first, *end); 0 if none is left. */
static int batch_claim(BatchObject *b, uint64_t *first, uint64_t *end)
{
    if (atomic_load(&b->stop) || b->claimed >= b->count)
        return 0;
    *first = b->claimed;
    *end = b->count - b->claimed < b->chunk ? b->count : b->claimed + b->chunk;
    b->claimed = *end;
    return 1;
}

static void *batch_worker(void *arg)
{
    struct worker *h = arg;
    BatchObject *b = h->batch;
    for (;;) {
        uint64_t i, end;
        pthread_mutex_lock(&b->mu);
        while (!atomic_load(&b->stop) && b->claimed < b->count && !batch_room(b)) {
            atomic_fetch_add(&b->sleepers, 1);
            if (!batch_room(b)) /* re-read after announcing the wait */
                pthread_cond_wait(&b->room, &b->mu);
            atomic_fetch_sub(&b->sleepers, 1);
        }
        int got = batch_claim(b, &i, &end);
        pthread_mutex_unlock(&b->mu);
        if (!got)
            return NULL;
        /* The caller copied the maps below taken before counting them (the
         * load pairs with its fetch_add). They are freed two before each
         * map made, so that frees and allocations alternate: freeing a
         * chunk's worth at once can leave the top of malloc's heap free
         * past its trim threshold, and the heap is then given back and
         * faulted in again. All of them if the list could overflow: the
         * claim needed claimed + chunk <= taken + ring, so the maps at or
         * above taken, with the new chunk, number at most ring. */
        if (h->len + (end - i) > h->cap)
            worker_free_kept(h, atomic_load(&b->taken), SIZE_MAX);
        for (; i < end && !atomic_load(&b->stop); i++) {
            worker_free_kept(h, atomic_load(&b->taken), 2);
            batch_make(b, h, i);
        }
    }
}

/* Starts the workers (with every signal blocked, so that signals reach the
 * Python thread). Fewer, or none, if threads or their lists cannot be made:
 * the calling thread makes whatever they do not. */
static void batch_start(BatchObject *b)
{
    b->started = 1;
    b->forks = atomic_load(&fork_count);
    if (b->split || b->threads < 2)
        return;
    uint64_t chunks = (b->count + b->chunk - 1) / b->chunk;
    unsigned want = b->threads - 1;
    if (chunks - 1 < want)
        want = (unsigned)(chunks - 1);
    if (!want || !(b->worker = calloc(want, sizeof *b->worker)))
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (b->workers < want) {
        struct worker *h = &b->worker[b->workers];
        h->batch = b;
        h->cap = 2 * (size_t)b->ring_len; /* ring: see batch_worker; twice, to free gradually */
        h->kept = malloc(h->cap * sizeof *h->kept);
        if (!h->kept)
            break;
        if (pthread_create(&h->tid, NULL, batch_worker, h) != 0) {
            free(h->kept);
            h->kept = NULL;
            break;
        }
        b->workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Empties the slots holding workers' maps (their kept lists own them). */
static void batch_unlend(BatchObject *b)
{
    for (uint64_t k = 0; k < b->ring_len; k++)
        if (b->ring[k].lent) {
            b->ring[k].m.grid = NULL;
            b->ring[k].m.cells = NULL;
            b->ring[k].lent = 0;
        }
}

/* Frees the maps the calling thread made and did not hand out. The
 * workers have stopped. */
static void batch_clear(BatchObject *b)
{
    for (uint64_t k = 0; b->ring && k < b->ring_len; k++) {
        cg_grid_free(b->ring[k].m.grid);
        free(b->ring[k].m.cells);
        b->ring[k].m.grid = NULL;
        b->ring[k].m.cells = NULL;
    }
}

/* Threads do not survive fork(): in the child, a batch whose workers were
 * running goes on with the calling thread alone, from its next map (made
 * again: the same map), as with jobs=1. The workers may have held the lock
 * and been half way through their lists: the lock and conditions are made
 * anew, and their maps are left allocated. */
static void batch_after_fork(BatchObject *b)
{
    batch_unlend(b);
    batch_clear(b);
    for (uint64_t k = 0; k < b->ring_len; k++)
        atomic_store(&b->ring[k].ready, 0);
    b->workers = 0;
    b->claimed = atomic_load(&b->taken);
    atomic_store(&b->wanted, 0);
    atomic_store(&b->sleepers, 0);
    atomic_store(&b->stop, 0);
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->room, NULL);
    pthread_cond_init(&b->made_cond, NULL);
}

/* Stops the workers after the map each is making, waits for them, and
 * frees the maps they kept. Slots lent from them are emptied. */
static void batch_stop(BatchObject *b)
{
    if (!b->workers)
        return;
    if (b->forks != atomic_load(&fork_count)) {
        batch_after_fork(b);
        return;
    }
    pthread_mutex_lock(&b->mu);
    atomic_store(&b->stop, 1);
    pthread_cond_broadcast(&b->room);
    pthread_mutex_unlock(&b->mu);
    for (unsigned t = 0; t < b->workers; t++) {
        pthread_join(b->worker[t].tid, NULL);
        worker_free_kept(&b->worker[t], UINT64_MAX, SIZE_MAX);
        free(b->worker[t].kept);
    }
    b->workers = 0;
    batch_unlend(b);
}

/* Returns when map i (the next to hand out) is ready, having made maps
 * meanwhile if a chunk was free. No GIL. */
static void batch_wait(BatchObject *b, uint64_t i)
{
    struct slot *s = &b->ring[i % b->ring_len];
    for (;;) {
        if (atomic_load(&s->ready) == i + 1)
            return;
        uint64_t first, end;
        pthread_mutex_lock(&b->mu);
        if (batch_room(b) && batch_claim(b, &first, &end)) {
            pthread_mutex_unlock(&b->mu);
            for (; first < end; first++)
                batch_make(b, NULL, first);
            continue;
        }
        /* Map i was claimed by a worker, with the rest of its chunk, which
         * it makes in order: wait for the chunk's last map (see batch_make),
         * one wake-up a chunk rather than one a map. */
        uint64_t last = (i / b->chunk + 1) * b->chunk;
        if (last > b->count)
            last = b->count;
        struct slot *ls = &b->ring[(last - 1) % b->ring_len];
        atomic_store(&b->wanted, last);
        while (atomic_load(&ls->ready) != last)
            pthread_cond_wait(&b->made_cond, &b->mu);
        atomic_store(&b->wanted, 0);
        pthread_mutex_unlock(&b->mu);
        return;
    }
}

/* The caller is done with map i's slot (and has copied a worker's map):
 * one more slot of room. */
static void batch_take(BatchObject *b)
{
    uint64_t taken = atomic_fetch_add(&b->taken, 1) + 1;
    /* Waiting workers are woken when half the ring is free again (they
     * wait for a chunk of room, less than that: the wake-ups, a system
     * call each, come once per half ring rather than once a chunk). The
     * fetch_add and their sleepers increment are sequentially consistent,
     * as in batch_make. */
    if ((taken % b->wake_every == 0 || taken == b->count) && atomic_load(&b->sleepers)) {
        /* Taking the lock once is enough: a worker that saw no room held
         * it until it slept. Woken after, workers need not wait for it. */
        pthread_mutex_lock(&b->mu);
        pthread_mutex_unlock(&b->mu);
        pthread_cond_broadcast(&b->room);
    }
}

/* Points *out at a made map the caller may own: the slot's own, or a copy
 * of a worker's made in the calling thread's memory (the worker frees the
 * original, see batch_worker). -1 if the copy cannot be made. */
static int batch_own(struct slot *s, struct made *copy, struct made **out)
{
    if (!s->lent) {
        *out = &s->m;
        return 0;
    }
    const cg_grid *g = s->m.grid;
    const uint8_t *cells = s->m.cells;
    *copy = s->m;
    s->m.grid = NULL;
    s->m.cells = NULL;
    s->lent = 0;
    size_t n = (size_t)cg_grid_width(g) * cg_grid_height(g);
    copy->cells = malloc(n);
    if (!copy->cells || cg_grid_clone(&copy->grid, g) != CG_OK) {
        free(copy->cells);
        copy->cells = NULL;
        copy->grid = NULL;
        return -1;
    }
    memcpy(copy->cells, cells, n);
    *out = copy;
    return 0;
}

static void batch_dealloc(BatchObject *self)
{
    batch_stop(self);
    batch_clear(self);
    free(self->worker);
    free(self->ring);
    pthread_cond_destroy(&self->room);
    pthread_cond_destroy(&self->made_cond);
    pthread_mutex_destroy(&self->mu);
    Py_XDECREF(self->pipeline);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *batch_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *names[] = {"pipeline", "seed", "count", "size", "max_attempts", "jobs", "stats",
                            "keep_going", NULL};
    PipelineObject *p;
    PyObject *seed_obj = Py_None, *size_obj = Py_None;
    unsigned long long count = 0;
    long attempts = 0, jobs = 0;
    int want_stats = 0, keep_going = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OK|Ollpp:Batch", names, &PipelineType, &p,
                                     &seed_obj, &count, &size_obj, &attempts, &jobs, &want_stats,
                                     &keep_going))
        return NULL;
    BatchObject *self = (BatchObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    /* tp_alloc zeroed the object; the lock and conditions are made before
     * anything can fail, as dealloc destroys them. */
    pthread_mutex_init(&self->mu, NULL);
    pthread_cond_init(&self->room, NULL);
    pthread_cond_init(&self->made_cond, NULL);
    Py_INCREF(p);
    self->pipeline = p;
    self->count = count;
    self->want_stats = want_stats;
    self->keep_going = keep_going;
    if (pipeline_ready(p) < 0 || seed_arg(p, seed_obj, &self->seed, &self->has_seed) < 0 ||
        size_arg(size_obj, &self->width, &self->height) < 0 ||
        attempts_arg(attempts, &self->max_attempts) < 0 || resolve_jobs(jobs, &self->threads) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    uint32_t w = self->width, h = self->height;
    if (!w || !h)
        cg_pipeline_default_size(p->p, &w, &h);
    uint64_t cells = (uint64_t)w * h;
    uint64_t per_map = cells + cells / 8 + 4096; /* the cells, the grid, the rest */
    uint64_t fit = RING_BYTES / per_map;         /* maps the ring may hold */
    uint64_t chunks = RING_CHUNKS * (uint64_t)self->threads; /* in the ring */
    uint64_t chunk = fit / chunks;
    if (chunk > CHUNK_BYTES / per_map)
        chunk = CHUNK_BYTES / per_map;
    uint64_t share = count / chunks + (count % chunks != 0);
    if (chunk > share) /* a short batch: a part for every thread */
        chunk = share;
    self->split = cells >= HUGE_CELLS;
    if (self->split || chunk < 1)
        chunk = 1;
    /* A multiple of chunk, so that room comes a whole chunk at a time. */
    uint64_t ring = self->split ? 1 : chunks * chunk;
    self->ring_len = ring;
    self->chunk = chunk;
    self->wake_every = ring / 2 > chunk ? ring / 2 : chunk;
    self->ring = calloc((size_t)ring, sizeof *self->ring);
    if (!self->ring) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static PyObject *batch_next(BatchObject *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the batch is being advanced in another thread");
        return NULL;
    }
    if (self->workers && self->forks != atomic_load(&fork_count))
        batch_after_fork(self);
    for (;;) {
        uint64_t i = atomic_load(&self->taken);
        if (self->done || i >= self->count) {
            if (!self->done) {
                self->done = 1;
                batch_stop(self); /* they have finished: release them now */
            }
            return NULL;
        }
        struct slot *s = &self->ring[i % self->ring_len];
        if (atomic_load(&s->ready) != i + 1) {
            self->busy = 1;
            Py_BEGIN_ALLOW_THREADS
            if (!self->started)
                batch_start(self);
            batch_wait(self, i);
            Py_END_ALLOW_THREADS
            self->busy = 0;
        }
        struct made *m = &s->m;
        if (m->st == CG_EFAIL && self->keep_going) {
            batch_take(self);
            continue;
        }
        if (m->st != CG_OK) {
            self->done = 1;
            cg_diag d = m->diag;
            cg_status st = m->st;
            batch_stop(self);
            batch_clear(self);
            char msg[sizeof d.message];
            snprintf(msg, sizeof msg, "%s", d.message[0] ? d.message : cg_strerror(st));
            snprintf(d.message, sizeof d.message, "map %llu (seed %llu): %.200s",
                     (unsigned long long)i, (unsigned long long)(self->seed + i), msg);
            return raise_status(st, &d);
        }
        struct made copy;
        if (batch_own(s, &copy, &m) < 0) {
            self->done = 1;
            batch_stop(self);
            batch_clear(self);
            return PyErr_NoMemory();
        }
        PyObject *map = map_from_made(m, self->has_seed, self->seed + i, self->pipeline->name,
                                      self->pipeline->text, (long long)i);
        /* Only now: the slot may be made again, a worker's map freed. */
        batch_take(self);
        return map;
    }
}

static PyObject *batch_length_hint(BatchObject *self, PyObject *unused)
{
    (void)unused;
    uint64_t left = self->done ? 0 : self->count - atomic_load(&self->taken);
    return PyLong_FromUnsignedLongLong(left);
}

static PyMethodDef batch_methods[] = {
    {"__length_hint__", (PyCFunction)batch_length_hint, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cavegen.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_dealloc = (destructor)batch_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Batch(pipeline, seed, count, size=None, max_attempts=0, jobs=0, stats=False,\n"
              "      keep_going=False)\n\n"
              "An iterator over count maps of a pipeline, map i with seed + i (mod 2**64),\n"
              "in order, made ahead of the loop on jobs threads (0: one per core), the\n"
              "calling one included, with the GIL released: cavegen.batch() is the usual\n"
              "way to make one.",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)batch_next,
    .tp_methods = batch_methods,
    .tp_new = batch_new,
};

/* ----------------------------------------------------- module functions */

static PyObject *mod_presets(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    size_t n = cg_preset_count();
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        const char *summary = cg_preset_summary(i);
        PyObject *item = Py_BuildValue("(ss)", cg_preset_name(i), summary ? summary : "");
        if (!item) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *mod_builtin(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *name;
    size_t len = 0;
    if (!PyArg_ParseTuple(args, "s:builtin_text", &name))
        return NULL;
    const char *text = cg_preset_builtin(name, &len);
    if (!text)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
}

static PyObject *mod_nearest(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *word;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "s#:nearest_preset", &word, &len))
        return NULL;
    const char *list[64];
    size_t n = 0;
    for (size_t i = 0; i < cg_preset_count() && n < 64; i++)
        list[n++] = cg_preset_name(i);
    const char *near = cg_nearest_name(word, (size_t)len, list, n);
    if (!near)
        Py_RETURN_NONE;
    return PyUnicode_FromString(near);
}

static PyObject *mod_apply(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *text;
    Py_ssize_t len;
    PyObject *list;
    if (!PyArg_ParseTuple(args, "s#O:apply_settings", &text, &len, &list))
        return NULL;
    PyObject *seq = PySequence_Fast(list, "settings must be a list of 'NAME=VALUE' strings");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    const char **settings = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *settings);
    size_t cap = (size_t)len;
    for (Py_ssize_t i = 0; settings && i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
        settings[i] = PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : NULL;
        if (!settings[i]) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "a setting is a 'NAME=VALUE' str");
            PyMem_Free(settings);
            Py_DECREF(seq);
            return NULL;
        }
        cap += strlen(settings[i]) + 3; /* cg_preset_apply's bound */
    }
    char *out = settings ? PyMem_Malloc(cap + 1) : NULL;
    if (!out) {
        PyMem_Free(settings);
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    size_t out_len = 0;
    cg_diag diag = {0};
    cg_status st = cg_preset_apply(text, (size_t)len, settings, (size_t)n, out, cap, &out_len,
                                   &diag);
    PyMem_Free(settings);
    Py_DECREF(seq);
    PyObject *res = st == CG_OK ? PyUnicode_DecodeUTF8(out, (Py_ssize_t)out_len, "replace")
                                : raise_status(st, &diag);
    PyMem_Free(out);
    return res;
}

static PyObject *mod_formats(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *list = PyList_New(0);
    cg_format_info fi;
    for (size_t i = 0; list && cg_format_describe((cg_format)i, &fi) == CG_OK; i++) {
        PyObject *item = Py_BuildValue("{s:s,s:s,s:s,s:O,s:O}", "name", fi.name, "extension",
                                       fi.extension, "summary", fi.summary, "binary",
                                       fi.binary ? Py_True : Py_False, "available",
                                       fi.available ? Py_True : Py_False);
        if (!item || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

static PyObject *mod_version(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    return PyUnicode_FromString(cg_version_string());
}

static PyMethodDef module_methods[] = {
    {"presets", mod_presets, METH_NOARGS, "presets() -> list[tuple[str, str]]: (name, summary)."},
    {"builtin_text", mod_builtin, METH_VARARGS,
     "builtin_text(name) -> str | None: a built-in preset's text."},
    {"nearest_preset", mod_nearest, METH_VARARGS,
     "nearest_preset(word) -> str | None: the built-in name word may be a typo of."},
    {"apply_settings", mod_apply, METH_VARARGS,
     "apply_settings(text, settings) -> str: preset text with 'NAME=VALUE' settings applied."},
    {"formats", mod_formats, METH_NOARGS, "formats() -> list[dict]: the output formats."},
    {"library_version", mod_version, METH_NOARGS, "The linked libcavegen's version string."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "cavegen._cavegen",
                                        "libcavegen, compiled in (see the cavegen package).", -1,
                                        module_methods, NULL, NULL, NULL, NULL};

static int add_type(PyObject *m, const char *name, PyTypeObject *t)
{
    if (PyType_Ready(t) < 0)
        return -1;
    Py_INCREF(t);
    if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
        Py_DECREF(t);
        return -1;
    }
    return 0;
}

static PyObject *new_error(PyObject *m, const char *name, const char *doc, PyObject *bases)
{
    char full[64];
    snprintf(full, sizeof full, "cavegen.%s", name);
    PyObject *e = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    if (e && PyModule_AddObject(m, name, Py_NewRef(e)) < 0) {
        Py_DECREF(e);
        return NULL;
    }
    return e;
}

PyMODINIT_FUNC PyInit__cavegen(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    static int registered;
    if (!registered && pthread_atfork(NULL, NULL, count_fork) == 0)
        registered = 1;
    if (PyStructSequence_InitType2(&PointType, &point_desc) < 0 ||
        PyStructSequence_InitType2(&RegionType, &region_desc) < 0)
        goto fail;
    Py_INCREF(&PointType);
    Py_INCREF(&RegionType);
    if (PyModule_AddObject(m, "Point", (PyObject *)&PointType) < 0 ||
        PyModule_AddObject(m, "Region", (PyObject *)&RegionType) < 0)
        goto fail;
    if (add_type(m, "Map", &MapType) < 0 || add_type(m, "Pipeline", &PipelineType) < 0 ||
        add_type(m, "Batch", &BatchType) < 0)
        goto fail;
    Error = new_error(m, "Error", "A libcavegen call failed.", NULL);
    if (!Error)
        goto fail;
    PyObject *b = PyTuple_Pack(2, Error, PyExc_ValueError);
    if (!b)
        goto fail;
    PresetError = new_error(m, "PresetError",
                            "Preset text that does not parse: line, column, message.", b);
    ArgumentError = new_error(m, "ArgumentError",
                              "An argument the library refuses (a size below the pipeline's "
                              "minimum, a start on a wall, an unknown setting).",
                              b);
    Py_DECREF(b);
    RequirementError = new_error(m, "RequirementError",
                                 "Every attempt failed one of the pipeline's requirements "
                                 "(entrance, exit, poi, occupy, require).",
                                 Error);
    if (!PresetError || !ArgumentError || !RequirementError)
        goto fail;
    if (PyModule_AddIntConstant(m, "UNREACHED", (long)CG_UNREACHED) < 0 ||
        PyModule_AddIntConstant(m, "MAX_DIM", (long)CG_MAX_DIM) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
