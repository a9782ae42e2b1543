/* The chart module: scales, nice ticks, locale-free numbers, the escaper
 * (hostile names, invalid UTF-8, control characters), SVG marks and the
 * report document in both renderings. */
#include <stdlib.h>

#include "t.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_pcre.h"
#include "analyzer/chart/ch_doc.h"
#include "analyzer/chart/ch_scale.h"
#include "analyzer/chart/ch_svg.h"
#include "analyzer/chart/ch_text.h"

static char *escaped(const char *s, size_t n)
{
    sk_buf b = SK_BUF_INIT;
    T_EQ_INT(ch_text_escape_n(&b, s, n), SK_OK);
    return sk_buf_take(&b);
}

static void test_linear(void)
{
    ch_linear y = ch_linear_make(0, 10, 200, 0);
    T_NEAR(ch_linear_map(&y, 0), 200, 1e-9);
    T_NEAR(ch_linear_map(&y, 10), 0, 1e-9);
    T_NEAR(ch_linear_map(&y, 2.5), 150, 1e-9);
    T_NEAR(ch_linear_map(&y, -5), 300, 1e-9);          /* extrapolates */
    T_NEAR(ch_linear_map_clamped(&y, -5), 200, 1e-9);  /* clamps */
    T_NEAR(ch_linear_map_clamped(&y, 99), 0, 1e-9);
    ch_linear flat = ch_linear_make(3, 3, 0, 100);
    T_NEAR(ch_linear_map(&flat, 3), 50, 1e-9);         /* degenerate: the middle */
}

static void test_band(void)
{
    ch_band b = ch_band_make(4, 0, 400, 0.2);
    T_NEAR(ch_band_step(&b), 100, 1e-9);
    T_NEAR(ch_band_width(&b), 80, 1e-9);
    T_NEAR(ch_band_start(&b, 0), 10, 1e-9);
    T_NEAR(ch_band_start(&b, 3), 310, 1e-9);
    T_NEAR(ch_band_centre(&b, 1), 150, 1e-9);
    ch_band rev = ch_band_make(2, 100, 0, 5.0); /* swapped range, padding capped */
    T_NEAR(rev.r0, 0, 1e-9);
    T_NEAR(rev.padding, 0.9, 1e-9);
    ch_band none = ch_band_make(0, 0, 100, 0.1);
    T_NEAR(ch_band_step(&none), 0, 1e-9);
}

static void test_ticks(void)
{
    ch_ticks t = ch_ticks_nice(-3.2, 17.9, 5);
    T_NEAR(t.step, 5, 1e-9);
    T_NEAR(t.lo, -5, 1e-9);
    T_NEAR(t.hi, 20, 1e-9);
    T_EQ_U64(t.n, 6);
    T_EQ_INT(t.decimals, 0);
    T_NEAR(ch_ticks_value(&t, 2), 5, 1e-9);
    t = ch_ticks_nice(0, 0.37, 4); /* step 0.1, one decimal */
    T_NEAR(t.step, 0.1, 1e-12);
    T_NEAR(t.hi, 0.4, 1e-12);
    T_EQ_INT(t.decimals, 1);
    t = ch_ticks_nice(12, 3, 10); /* swapped */
    T_NEAR(t.lo, 3, 1e-9);
    T_NEAR(t.hi, 12, 1e-9);
    T_NEAR(t.step, 1, 1e-9);
    t = ch_ticks_nice(7, 7, 5); /* zero width */
    T_CHECK(t.lo < 7 && t.hi > 7 && t.n >= 2);
    t = ch_ticks_nice(0, 1.0 / 0.0, 5); /* not finite */
    T_NEAR(t.lo, 0, 1e-9);
    T_NEAR(t.hi, 1, 1e-9);
    t = ch_ticks_nice(0, 1e9, 20);
    T_CHECK(t.n >= 2 && t.n <= CH_TICKS_MAX);
}

static void test_num_text(void)
{
    char t[48];
    ch_num_text(1.25, 1, t, sizeof t);
    T_EQ_STR(t, "1.3");
    ch_num_text(-0.04, 1, t, sizeof t);
    T_EQ_STR(t, "0.0");
    ch_num_text(-12.5, 0, t, sizeof t);
    T_EQ_STR(t, "-13");
    ch_num_text(3, 2, t, sizeof t);
    T_EQ_STR(t, "3.00");
    ch_num_text(0.0 / 0.0, 1, t, sizeof t);
    T_EQ_STR(t, "0");
}

static void test_escape_hostile(void)
{
    const char *hostile = "<script>alert(\"x&y\")</script>' onload='z";
    char *s = escaped(hostile, strlen(hostile));
    T_EQ_STR(s, "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;&#39; onload=&#39;z");
    free(s);
    s = escaped("算子_Add<1>", strlen("算子_Add<1>")); /* valid UTF-8 is kept */
    T_EQ_STR(s, "算子_Add&lt;1&gt;");
    free(s);
    sk_buf b = SK_BUF_INIT;
    T_EQ_INT(ch_text_escape(&b, NULL), SK_OK);
    T_EQ_U64(b.len, 0);
    sk_buf_free(&b);
}

static void test_escape_invalid_utf8(void)
{
    /* a lone continuation byte, a truncated sequence, an overlong '<', a
     * surrogate, bytes above U+10FFFF, control characters */
    const char in[] = "a\x80" "b\xE4\xB8" "c\xC0\xBC" "d\xED\xA0\x80" "e\xF4\x90\x80\x80" "f\x01\x7F\tg";
    size_t n = sizeof in - 1;
    char *s = escaped(in, n);
    size_t bad = 0;
    T_CHECK(sk_utf8_validate(s, strlen(s), &bad));
    T_CHECK(strchr(s, '\x01') == NULL);
    T_CHECK(strchr(s, '\x7F') == NULL);
    T_CHECK(strstr(s, "<") == NULL);
    T_CONTAINS(s, "a\xEF\xBF\xBD" "b");
    T_CONTAINS(s, "\tg");
    T_CHECK(s[0] == 'a' && strstr(s, "b") && strstr(s, "c") && strstr(s, "d") && strstr(s, "e"));
    free(s);
    s = escaped("x\0y", 3); /* NUL inside a counted string */
    T_EQ_STR(s, "x\xEF\xBF\xBDy");
    free(s);
}

static void test_svg_marks(void)
{
    sk_buf b = SK_BUF_INIT;
    ch_svg s;
    T_EQ_INT(ch_svg_begin(&s, &b, 200, 100, "a<b"), SK_OK);
    ch_svg_rect(&s, 10, 20, -5, 30, "slow", "SK \"k\" & <1>");
    ch_svg_line(&s, 0, 0, 1.05, 2, "axis", NULL);
    ch_svg_circle(&s, 5, 5, 2, NULL, NULL);
    double pts[] = {0, 0, 10, 0, 10, 10};
    ch_svg_path(&s, pts, 3, 1, "band", NULL);
    ch_svg_text(&s, 1, 2, CH_MIDDLE, "tick", "x'y");
    ch_linear y = ch_linear_make(0, 10, 90, 10);
    ch_ticks t = ch_ticks_nice(0, 10, 2);
    ch_axis_left(&s, &y, &t, 30, 190, "相对变化 (%)");
    ch_legend_item items[] = {{"slow", "显著变慢", CH_SWATCH_BOX}, {"band", "噪声", CH_SWATCH_LINE}};
    ch_legend(&s, 30, 10, items, 2);
    T_EQ_INT(ch_svg_end(&s), SK_OK);
    const char *o = sk_buf_cstr(&b);
    T_CONTAINS(o, "aria-label=\"a&lt;b\"");
    T_CONTAINS(o, "<rect x=\"5.0\" y=\"20.0\" width=\"5.0\" height=\"30.0\" class=\"slow\"><title>SK &quot;k&quot; &amp; &lt;1&gt;</title></rect>");
    T_CONTAINS(o, "<line x1=\"0.0\" y1=\"0.0\" x2=\"1.1\" y2=\"2.0\" class=\"axis\"/>");
    T_CONTAINS(o, "<path d=\"M0.0 0.0 L10.0 0.0 L10.0 10.0 Z\" class=\"band\"/>");
    T_CONTAINS(o, ">x&#39;y</text>");
    T_CONTAINS(o, ">相对变化 (%)</text>");
    T_CONTAINS(o, ">显著变慢</text>");
    T_CHECK(s.marks > 6);
    T_CHECK(strstr(o, "</svg>\n") != NULL);
    sk_buf_free(&b);
}

/* One document with every construct, hostile text included. */
static sk_err write_doc(ch_doc *d)
{
    static const char *const cols[] = {"a|b", "分类"};
    ch_doc_headingf(d, 1, "T<1>");
    ch_doc_heading_begin(d, 3);
    ch_doc_text(d, "6.1 ");
    ch_doc_code(d, "k`ey");
    ch_doc_heading_end(d);
    ch_doc_para_begin(d);
    ch_doc_text(d, "x & y ");
    ch_doc_bold(d, "b");
    ch_doc_marked(d, " see `c|d` and `e`");
    ch_doc_para_end(d);
    ch_doc_list_begin(d, 0);
    ch_doc_item_begin(d);
    ch_doc_text(d, "one");
    ch_doc_list_begin(d, 0);
    ch_doc_item_begin(d);
    ch_doc_code(d, "f:1");
    ch_doc_item_end(d);
    ch_doc_list_end(d);
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_text(d, "two");
    ch_doc_item_end(d);
    ch_doc_list_end(d);
    ch_doc_table_begin(d, "t\"1", CH_DOC_SORTABLE, 1);
    ch_doc_head(d, cols, 2);
    ch_doc_row_begin(d);
    ch_doc_cell(d, "p|q\nr");
    ch_doc_cell_begin(d);
    ch_doc_code(d, "s");
    ch_doc_break(d);
    ch_doc_code(d, "t|u");
    ch_doc_cell_end(d);
    ch_doc_row_end(d);
    ch_doc_row_begin(d);
    ch_doc_cell(d, NULL);
    ch_doc_cellf(d, "%d%%", 5);
    ch_doc_row_end(d);
    ch_doc_table_end(d);
    ch_doc_code_block(d, NULL, "a = [\"<x>\"]\nb");
    ch_doc_list_begin(d, 1);
    ch_doc_item_begin(d);
    ch_doc_text(d, "step");
    ch_doc_code_block(d, "sh", "cmd a\ncmd b");
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_text(d, "last");
    ch_doc_item_end(d);
    ch_doc_list_end(d);
    ch_doc_html(d, "<svg/>");
    return ch_doc_error(d);
}

static void test_doc_markdown(void)
{
    sk_buf b = SK_BUF_INIT;
    ch_doc d;
    ch_doc_init(&d, CH_DOC_MARKDOWN, &b);
    T_EQ_INT(write_doc(&d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b),
             "# T<1>\n\n"
             "### 6.1 `k ey`\n\n"
             "x & y **b** see `c|d` and `e`\n\n"
             "- one\n  - `f:1`\n- two\n\n"
             "| a\\|b | 分类 |\n|---|---|\n"
             "| p\\|q r | `s`<br>`t\\|u` |\n"
             "| — | 5% |\n\n"
             "```\na = [\"<x>\"]\nb\n```\n\n"
             "1. step\n\n   ```sh\n   cmd a\n   cmd b\n   ```\n\n"
             "2. last\n\n");
    sk_buf_free(&b);
}

static void test_doc_html(void)
{
    sk_buf b = SK_BUF_INIT;
    ch_doc d;
    ch_doc_init(&d, CH_DOC_HTML, &b);
    T_EQ_INT(write_doc(&d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b),
             "<h1>T&lt;1&gt;</h1>\n"
             "<h3>6.1 <code>k`ey</code></h3>\n"
             "<p>x &amp; y <strong>b</strong> see <code>c|d</code> and <code>e</code></p>\n"
             "<ul>\n<li>one<ul>\n<li><code>f:1</code></li>\n</ul>\n</li>\n<li>two</li>\n</ul>\n"
             "<table id=\"t&quot;1\" class=\"sortable\" data-filter=\"1\">\n"
             "<thead><tr><th>a|b</th><th>分类</th></tr></thead>\n<tbody>\n"
             "<tr><td>p|q\nr</td><td><code>s</code><br/><code>t|u</code></td></tr>\n"
             "<tr><td>—</td><td>5%</td></tr>\n"
             "</tbody>\n</table>\n"
             "<pre><code>a = [&quot;&lt;x&gt;&quot;]\nb</code></pre>\n"
             "<ol>\n<li>step<pre><code>cmd a\ncmd b</code></pre>\n</li>\n<li>last</li>\n</ol>\n"
             "<svg/>");
    sk_buf_free(&b);
}

/* Calls out of order are the writer's bug: SK_E_INTERNAL, sticky. */
static void test_doc_misuse(void)
{
    sk_buf b = SK_BUF_INIT;
    ch_doc d;
    ch_doc_init(&d, CH_DOC_MARKDOWN, &b);
    ch_doc_cell(&d, "outside a table");
    T_EQ_INT(ch_doc_error(&d), SK_E_INTERNAL);
    size_t len = b.len;
    ch_doc_paraf(&d, "after the error");
    T_EQ_U64(b.len, len);
    sk_buf_free(&b);
    ch_doc_init(&d, CH_DOC_HTML, &b);
    ch_doc_list_end(&d);
    T_EQ_INT(ch_doc_error(&d), SK_E_INTERNAL);
    sk_buf_free(&b);
}

/* Every allocation may fail: SK_E_NOMEM, never a shortened document
 * reported as written. */
static void test_doc_allocation_failures(void)
{
#ifdef SK_TEST_HOOKS
    for (int fmt = 0; fmt < 2; fmt++)
        for (int n = 1;; n++) {
            sk_buf b = SK_BUF_INIT;
            ch_doc d;
            ch_doc_init(&d, fmt ? CH_DOC_HTML : CH_DOC_MARKDOWN, &b);
            sk_alloc_fail_at(n);
            sk_err e = write_doc(&d);
            sk_alloc_fail_at(0);
            sk_buf_free(&b);
            if (e == SK_OK)
                break;
            T_EQ_INT(e, SK_E_NOMEM);
        }
#endif
}

static const t_case cases[] = {
    T(test_linear), T(test_band), T(test_ticks), T(test_num_text), T(test_escape_hostile),
    T(test_escape_invalid_utf8), T(test_svg_marks), T(test_doc_markdown), T(test_doc_html),
    T(test_doc_misuse), T(test_doc_allocation_failures), {NULL, NULL}};
T_MAIN(cases)
