/**
 * The component's stylesheet (inside its Shadow DOM). Everything a site may want to change is a
 * custom property (`--ec-*`, inherited through the shadow boundary) or a `::part`.
 */
export const CSS = `
:host{display:block;font:var(--ec-font,inherit);color:var(--ec-color,inherit);background:var(--ec-background,transparent);
--_accent:var(--ec-accent,#1a56a8);--_muted:var(--ec-muted,#555);--_border:var(--ec-border,#c8c8c8);--_radius:var(--ec-radius,6px);
--_today:var(--ec-today-background,#fff4c2);--_focus:var(--ec-focus,#1a56a8);--_event:var(--ec-event-background,#e8effa);--_event-color:var(--ec-event-color,#0f2f5e)}
:host([hidden]){display:none}
*{box-sizing:border-box}
.root{container-type:inline-size}
a{color:var(--_accent)}
a:focus-visible,button:focus-visible,[role=gridcell]:focus-visible{outline:3px solid var(--_focus);outline-offset:2px}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.status{color:var(--_muted);margin:.5em 0}
.error{color:var(--ec-error,#a1001f)}
button{font:inherit;color:inherit;background:var(--ec-button-background,transparent);border:1px solid var(--_border);border-radius:var(--_radius);padding:.3em .7em;cursor:pointer;min-width:44px;min-height:44px}
.header{display:flex;align-items:center;gap:.5em;justify-content:space-between;margin-bottom:.5em}
.title{font-size:1.15em;margin:0}
ul{list-style:none;margin:0;padding:0}
.day-heading{font-size:1em;margin:1em 0 .3em;color:var(--_muted)}
.event{display:flex;flex-wrap:wrap;gap:.2em .8em;padding:.45em 0;border-bottom:1px solid var(--_border)}
.event .name{font-weight:600}
.event .image{flex:0 0 100%;max-width:160px;height:auto;border-radius:calc(var(--_radius)/2)}
.time,.venue,.cost,.terms{color:var(--_muted);font-size:.92em}
.upcoming .event{display:block;padding:.3em 0}
.upcoming .time{display:block}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th{font-weight:600;font-size:.85em;color:var(--_muted);padding:.3em 0}
td{border:1px solid var(--_border);vertical-align:top;height:5.5em;padding:.2em;overflow:hidden}
td.other{color:var(--_muted);background:var(--ec-other-month-background,transparent)}
td.today{background:var(--_today)}
.num{display:block;font-size:.85em;font-weight:600}
.chip{display:block;font-size:.8em;margin-top:.15em;padding:.1em .3em;border-radius:calc(var(--_radius)/2);background:var(--_event);color:var(--_event-color);text-decoration:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.chip:hover{text-decoration:underline}
.more{font-size:.8em;color:var(--_muted)}
@container (max-width:480px){.event .image{max-width:100%}td{height:auto;min-height:3em}.chip{white-space:normal}th{font-size:.75em}}
`;
