/**
 * The page shell: one self-contained HTML document (inline CSS, one small inline script,
 * inline SVG; nothing fetched, so it opens from disk), readable in light and dark mode
 * (prefers-color-scheme picks the palette; every colour is a CSS variable).
 *
 * The script only opens a collapsed <details> when a link points into it (the kill
 * matrix links to lane diagrams further down); the page reads fine without it.
 */
import { el, esc, leaf } from './html.js';

export interface PageSection {
  readonly id: string;
  readonly heading: string;
  readonly html: string;
}

export interface Page {
  readonly title: string;
  /** one line under the title: where the data came from */
  readonly subtitle: string;
  readonly sections: readonly PageSection[];
  /** inputs that could not be read or replayed, one line each */
  readonly problems: readonly string[];
}

const CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1d2330;--muted:#5b6475;--line:#d5d9e0;--panel:#f5f7fa;--lane:#fafbfc;
--lane-alt:#f0f2f6;
--mx:#9cc3f5;--cv:#f3c48b;--cvt:#c9a8ef;--sync:#6b7280;--backend:#2f6fd6;--engine:#2e9b5a;--op:#8a94a6;
--fault:#d62f2f;--viol:#e0242b;--vband:rgba(224,36,43,.16);
--notify:#e08a00;--woken:#e08a00;--spur:#c8a000;--call:#7c8aa5;--good:#1f8a4c;--bad:#c62828;--warn:#b26a00;
--link:#1f5fbf;--code:#eef1f5}
@media (prefers-color-scheme:dark){:root{--bg:#14171c;--fg:#e3e7ee;--muted:#9aa3b2;--line:#343a45;--panel:#1c2028;
--lane:#181c22;--lane-alt:#1f242c;
--mx:#2f5f9e;--cv:#8a5a1c;--cvt:#5d3f8a;--sync:#a3acba;--backend:#5b9cff;--engine:#4cc27f;--op:#7d889b;
--fault:#ff5c5c;--viol:#ff4d55;--vband:rgba(255,77,85,.22);
--notify:#ffae33;--woken:#ffae33;--spur:#ffd84d;--call:#7f8db0;--good:#4cc27f;--bad:#ff6b6b;--warn:#ffb74d;
--link:#7fb2ff;--code:#232833}}*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header,main{max-width:1280px;margin:0 auto;padding:0 20px}header{padding-top:18px}h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}a{color:var(--link)}
code{background:var(--code);padding:1px 4px;border-radius:3px;font-size:12.5px}
nav{display:flex;flex-wrap:wrap;gap:4px 14px;margin:8px 0 0}.sub,.meta,.note{color:var(--muted)}
.meta{font-size:12.5px}table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ok{color:var(--good);font-weight:600}.bad{color:var(--bad);font-weight:600}.warn{color:var(--warn)}
.problems{border:1px solid var(--bad);border-radius:6px;padding:6px 12px;margin:10px 0}
.scroll{overflow-x:auto;max-width:100%;border:1px solid var(--line);border-radius:4px}
details{margin:6px 0;border:1px solid var(--line);border-radius:6px;padding:4px 10px}
details>summary{cursor:pointer;font-weight:600}details[open]{background:var(--bg)}.violated{color:var(--bad)}
.violated .detail{color:var(--fg)}.clean{color:var(--good)}
.legend{font-size:12px;color:var(--muted);display:flex;flex-wrap:wrap;gap:2px 12px}
.key{display:inline-flex;align-items:center;gap:4px}.axis-switch>input{margin-left:0}
.axis-switch>label{margin-right:14px;font-size:12.5px}.axis-switch>.scroll{display:none}
.axis-switch .ax-near:checked~.view-near,.axis-switch .ax-step:checked~.view-step,
.axis-switch .ax-time:checked~.view-time{display:block}.axis-switch>.scroll{width:fit-content;max-width:100%}
.cx .meta p{margin:2px 0}
.cx code.schedule,.cx code.replay{white-space:normal;overflow-wrap:anywhere;word-break:break-all}
.how{font-size:12.5px;max-width:980px}svg text{fill:var(--fg);font:11px system-ui,sans-serif}
svg .ax{fill:var(--muted);font-size:10px}svg .ax.t{font-size:9px}svg .tick{stroke:var(--line);stroke-width:1}
.lane-bg{fill:var(--lane)}.lane-bg.alt{fill:var(--lane-alt)}.lane-name{font-weight:600}.s-mx{fill:var(--mx)}
.s-wait-cv{fill:url(#hatch-cv)}.s-wait-cv_take{fill:url(#hatch-cvt)}
.s-woken{stroke:var(--woken);stroke-width:1.5;stroke-dasharray:3 2}.legend .s-wait-cv{fill:var(--cv)}
.legend .s-wait-cv_take{fill:var(--cvt)}.m{stroke:none}.k-mutex,.k-wait,.k-mark{fill:var(--sync)}
.k-backend{fill:var(--backend)}.k-engine{fill:var(--engine)}.k-op{fill:var(--op)}.k-thread{fill:var(--sync)}
.k-fault{fill:var(--fault)}.k-violation{fill:var(--viol);stroke:var(--bg);stroke-width:1.5}
.k-notify{fill:var(--notify)}.k-woken{fill:var(--woken)}.k-spurious{fill:var(--spur);stroke:var(--fg);stroke-width:.6}
.call{fill:var(--call);opacity:.75}.call.open{opacity:.4}.call-name{fill:var(--muted);font-size:9px}
.vband{fill:var(--vband);stroke:var(--viol);stroke-width:1}svg .vlabel{fill:var(--viol);font-weight:600}
.ar{fill:none;stroke-width:1.3}.ar-signal{stroke:var(--notify)}
.ar-broadcast{stroke:var(--notify);stroke-dasharray:4 2}.ar-spawn,.ar-join{stroke:var(--sync);stroke-dasharray:1 2}
.ah{fill:var(--muted)}.hm-cell{stroke:var(--bg);stroke-width:1}.hm-k{stroke:var(--fg);stroke-width:2}
.hm-none{fill:var(--panel)}.hm-surv{fill:url(#hatch-surv)}.hm-eq{fill:var(--line)}.hm-head{font-size:10px}
.bar{fill:var(--backend)}.bar.alt{fill:var(--engine)}.bar.low{fill:var(--warn)}.bar.zero{fill:var(--bad)}
.bar.scope{fill:var(--line)}.line-a{stroke:var(--backend);fill:none;stroke-width:2}
.line-b{stroke:var(--engine);fill:none;stroke-width:2}.dot-a{fill:var(--backend)}.dot-b{fill:var(--engine)}
.ref{stroke:var(--bad);stroke-dasharray:5 3;stroke-width:1.5}.grid{stroke:var(--line);stroke-width:1}
.charts{display:flex;flex-wrap:wrap;gap:10px 24px}.plot{margin:0}svg .ct{font-weight:600;font-size:11.5px}svg .dim{opacity:.55}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
td code{white-space:nowrap}.hidden-defs{position:absolute;width:0;height:0;overflow:hidden}
`;

/**
 * Opens the <details> a link points into, so links to collapsed lane diagrams land; and
 * scrolls a lane diagram wider than the page to its violating step whenever it comes
 * into view (loaded, switched to, unfolded).
 */
const SCRIPT = `
(function(){function openTarget(){var id=location.hash.slice(1);if(!id)return;
var t=document.getElementById(id);if(!t)return;for(var e=t;e;e=e.parentElement){if(e.tagName==='DETAILS')e.open=true;}t.scrollIntoView();}
function toViolation(box){var b=box.querySelector('[data-violation-step]');if(!b||!box.clientWidth)return;
var x=parseFloat(b.getAttribute('x'))||0;if(x+(parseFloat(b.getAttribute('width'))||0)<=box.clientWidth)return;
box.scrollLeft=Math.max(0,x-box.clientWidth*0.75);}
function within(root){if(root&&root.querySelectorAll)root.querySelectorAll('.scroll').forEach(toViolation);}
window.addEventListener('hashchange',openTarget);
document.addEventListener('DOMContentLoaded',function(){openTarget();within(document);});
document.addEventListener('change',function(e){within(e.target&&e.target.closest?e.target.closest('.axis-switch'):null);});
document.addEventListener('toggle',function(e){within(e.target);},true);})();
`;

/**
 * Patterns and the arrowhead, defined once and referenced by id from every diagram
 * (a definition inside a hidden view would not paint).
 */
export const SHARED_SVG_DEFS = el(
  'svg',
  { class: 'hidden-defs', 'aria-hidden': 'true', width: 0, height: 0 },
  el(
    'defs',
    {},
    el(
      'marker',
      {
        id: 'arrowhead',
        viewBox: '0 0 6 6',
        refX: 5,
        refY: 3,
        markerWidth: 6,
        markerHeight: 6,
        orient: 'auto-start-reverse',
      },
      leaf('path', { d: 'M0 0L6 3L0 6z', class: 'ah' }),
    ),
    hatch('hatch-cv', 'var(--cv)'),
    hatch('hatch-cvt', 'var(--cvt)'),
    hatch('hatch-surv', 'var(--line)'),
  ),
);

function hatch(id: string, colour: string): string {
  return el(
    'pattern',
    { id, width: 5, height: 5, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
    leaf('rect', { width: 2.5, height: 5, style: `fill:${colour}` }),
  );
}

export function renderPage(p: Page): string {
  // a page of one section needs no table of contents
  const nav =
    p.sections.length > 1 ? el('nav', {}, ...p.sections.map((s) => el('a', { href: `#${s.id}` }, esc(s.heading)))) : '';
  const problems =
    p.problems.length === 0
      ? ''
      : el(
          'div',
          { class: 'problems', id: 'problems' },
          el('b', {}, `${p.problems.length} input${p.problems.length === 1 ? '' : 's'} could not be shown:`),
          el('ul', {}, ...p.problems.map((x) => el('li', {}, esc(x)))),
        );
  const body = p.sections.map((s) => el('section', { id: s.id }, el('h2', {}, esc(s.heading)), s.html)).join('\n');
  return (
    '<!doctype html>\n' +
    el(
      'html',
      { lang: 'en' },
      el(
        'head',
        {},
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        el('title', {}, esc(p.title)),
        el('style', {}, CSS),
        el('script', {}, SCRIPT),
      ),
      el(
        'body',
        {},
        SHARED_SVG_DEFS,
        el('header', {}, el('h1', {}, esc(p.title)), el('p', { class: 'sub' }, esc(p.subtitle)), nav),
        el('main', {}, problems, body),
      ),
    ) +
    '\n'
  );
}
