// What the report says of its own runs, in each language: the note for a run that stopped early and
// was resumed, and the "What changed" section of an enhanced version or a scheduled run.
import type { ReportLabels } from './labels-shape';

export const RUN_LABELS: Record<'en' | 'de' | 'es' | 'fr' | 'zh' | 'ja', Pick<ReportLabels, 'resumedRun' | 'whatChanged'>> = {
  en: {
    resumedRun: (r) => {
      const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
      const added = [`read ${count(r.sourcesAdded, 'more source', 'more sources')}`, `added ${count(r.findingsAdded, 'finding')}`, ...(r.written ? [`wrote ${r.written}`] : [])];
      return (
        `**Unfinished, then resumed:** ${r.run ? `run ${r.run}` : 'the first run'} ${r.stopped}${r.reason ? ` (${r.reason})` : ''} after reading ${count(r.sourcesBefore, 'source')} into ${count(r.findingsBefore, 'finding')}` +
        `${r.unreached ? `; it never reached ${r.unreached}` : ''}. Resumed, the research ${added.length === 3 ? `${added[0]}, ${added[1]} and ${added[2]}` : added.join(' and ')}` +
        `${r.left ? `; nothing was found for ${r.left}, which the report states as ${r.leftCount === 1 ? 'a gap' : 'gaps'}` : ''}.`
      );
    },
    whatChanged: {
      title: 'What changed',
      since: (v) => `What changed since ${v}`,
      noPrevious: (id) => `The version this one goes on from (${id}) is no longer stored: nothing to compare with.`,
      firstRun: 'First run of this schedule: nothing earlier to compare with.',
      compared: (id, at, c) =>
        `Compared with the previous run (${id}, ${at}): ${c.newSources} new, ${c.changedSources} changed and ${c.goneSources} gone sources; ` +
        `${c.newFindings} new, ${c.changedFindings} changed and ${c.goneFindings} gone findings${c.reread ? ` (${c.reread} more were read again, in other words, from pages whose text did not change: not listed)` : ''}.`,
      nothingChanged: 'Nothing changed since the previous run.',
      newFindings: 'New findings',
      changedFindings: 'Changed findings',
      goneFindings: 'Findings no longer supported',
      newSources: 'New sources',
      changedSources: 'Sources whose text changed',
      goneSources: 'Sources gone',
      was: (before) => `(was: ${before})`,
      andMore: (n) => `… and ${n} more`,
      nothingNew: (id) => `Nothing new since ${id}: the research found no source or finding to add.`,
      enhanced: (id, sources, findings, changed) =>
        `Since ${id}: ${sources} new ${sources === 1 ? 'source' : 'sources'} read, ${findings} new ${findings === 1 ? 'finding' : 'findings'}${changed ? `, ${changed} changed` : ''}.`,
      newSourcesRead: (list) => `New sources: ${list}.`,
    },
  },
  de: {
    resumedRun: (r) => {
      const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
      const read = `${count(r.sourcesAdded, 'weitere Quelle', 'weitere Quellen')} gelesen`;
      const added = `${count(r.findingsAdded, 'Ergebnis', 'Ergebnisse')} hinzugefügt`;
      return (
        `**Unvollständig, dann fortgesetzt:** ${r.run ? `Lauf ${r.run}` : 'Der erste Lauf'} ${r.stopped}${r.reason ? ` (${r.reason})` : ''}, nachdem er ${count(r.sourcesBefore, 'Quelle', 'Quellen')} gelesen ` +
        `und ${count(r.findingsBefore, 'Ergebnis', 'Ergebnisse')} gewonnen hatte${r.unreached ? `; ${r.unreached} erreichte er nie` : ''}. ` +
        `Fortgesetzt hat die Recherche ${r.written ? `${read}, ${added} und ${r.written} geschrieben` : `${read} und ${added}`}` +
        `${r.left ? `; zu ${r.left} fand sich nichts, der Bericht nennt ${r.leftCount === 1 ? 'es als Lücke' : 'sie als Lücken'}` : ''}.`
      );
    },
    whatChanged: {
      title: 'Was sich geändert hat',
      since: (v) => `Was sich seit ${v} geändert hat`,
      noPrevious: (id) => `Die Version, auf der diese aufbaut (${id}), ist nicht mehr gespeichert: nichts zum Vergleichen.`,
      firstRun: 'Erster Lauf dieses Zeitplans: nichts Früheres zum Vergleichen.',
      compared: (id, at, c) =>
        `Verglichen mit dem vorigen Lauf (${id}, ${at}): ${c.newSources} neue, ${c.changedSources} geänderte und ${c.goneSources} weggefallene Quellen; ` +
        `${c.newFindings} neue, ${c.changedFindings} geänderte und ${c.goneFindings} weggefallene Ergebnisse${c.reread ? ` (${c.reread} weitere wurden aus unveränderten Seiten mit anderen Worten erneut gelesen: nicht aufgeführt)` : ''}.`,
      nothingChanged: 'Seit dem vorigen Lauf hat sich nichts geändert.',
      newFindings: 'Neue Ergebnisse',
      changedFindings: 'Geänderte Ergebnisse',
      goneFindings: 'Nicht mehr gestützte Ergebnisse',
      newSources: 'Neue Quellen',
      changedSources: 'Quellen mit geändertem Text',
      goneSources: 'Weggefallene Quellen',
      was: (before) => `(vorher: ${before})`,
      andMore: (n) => `… und ${n} weitere`,
      nothingNew: (id) => `Nichts Neues seit ${id}: Die Recherche fand keine Quelle und kein Ergebnis, das hinzuzufügen wäre.`,
      enhanced: (id, sources, findings, changed) =>
        `Seit ${id}: ${sources} ${sources === 1 ? 'neue Quelle' : 'neue Quellen'} gelesen, ${findings} ${findings === 1 ? 'neues Ergebnis' : 'neue Ergebnisse'}${changed ? `, ${changed} geändert` : ''}.`,
      newSourcesRead: (list) => `Neue Quellen: ${list}.`,
    },
  },
  es: {
    resumedRun: (r) => {
      const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
      const parts = [`leyó ${count(r.sourcesAdded, 'fuente más', 'fuentes más')}`, `añadió ${count(r.findingsAdded, 'hallazgo', 'hallazgos')}`, ...(r.written ? [`escribió ${r.written}`] : [])];
      return (
        `**Sin terminar, luego reanudada:** ${r.run ? `la ejecución ${r.run}` : 'la primera ejecución'} ${r.stopped}${r.reason ? ` (${r.reason})` : ''} tras leer ${count(r.sourcesBefore, 'fuente', 'fuentes')} ` +
        `y obtener ${count(r.findingsBefore, 'hallazgo', 'hallazgos')}${r.unreached ? `; nunca llegó a ${r.unreached}` : ''}. ` +
        `Reanudada, la investigación ${parts.length === 3 ? `${parts[0]}, ${parts[1]} y ${parts[2]}` : parts.join(' y ')}` +
        `${r.left ? `; no se encontró nada para ${r.left}, que el informe señala como ${r.leftCount === 1 ? 'laguna' : 'lagunas'}` : ''}.`
      );
    },
    whatChanged: {
      title: 'Qué ha cambiado',
      since: (v) => `Qué ha cambiado desde ${v}`,
      noPrevious: (id) => `La versión de la que parte esta (${id}) ya no está guardada: no hay nada con qué comparar.`,
      firstRun: 'Primera ejecución de esta programación: no hay nada anterior con qué comparar.',
      compared: (id, at, c) =>
        `Comparado con la ejecución anterior (${id}, ${at}): ${c.newSources} fuentes nuevas, ${c.changedSources} cambiadas y ${c.goneSources} desaparecidas; ` +
        `${c.newFindings} hallazgos nuevos, ${c.changedFindings} cambiados y ${c.goneFindings} desaparecidos${c.reread ? ` (${c.reread} más se volvieron a leer, con otras palabras, de páginas cuyo texto no cambió: no se enumeran)` : ''}.`,
      nothingChanged: 'Nada ha cambiado desde la ejecución anterior.',
      newFindings: 'Hallazgos nuevos',
      changedFindings: 'Hallazgos cambiados',
      goneFindings: 'Hallazgos que ya no tienen respaldo',
      newSources: 'Fuentes nuevas',
      changedSources: 'Fuentes cuyo texto cambió',
      goneSources: 'Fuentes desaparecidas',
      was: (before) => `(antes: ${before})`,
      andMore: (n) => `… y ${n} más`,
      nothingNew: (id) => `Nada nuevo desde ${id}: la investigación no encontró ninguna fuente ni hallazgo que añadir.`,
      enhanced: (id, sources, findings, changed) =>
        `Desde ${id}: ${sources} ${sources === 1 ? 'fuente nueva leída' : 'fuentes nuevas leídas'}, ${findings} ${findings === 1 ? 'hallazgo nuevo' : 'hallazgos nuevos'}${changed ? `, ${changed} cambiados` : ''}.`,
      newSourcesRead: (list) => `Fuentes nuevas: ${list}.`,
    },
  },
  fr: {
    resumedRun: (r) => {
      const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
      const parts = [`lu ${count(r.sourcesAdded, 'source de plus', 'sources de plus')}`, `ajouté ${count(r.findingsAdded, 'constat', 'constats')}`, ...(r.written ? [`écrit ${r.written}`] : [])];
      return (
        `**Inachevé, puis repris :** ${r.run ? `l’exécution ${r.run}` : 'la première exécution'} ${r.stopped}${r.reason ? ` (${r.reason})` : ''} après avoir lu ${count(r.sourcesBefore, 'source', 'sources')} ` +
        `et tiré ${count(r.findingsBefore, 'constat', 'constats')}${r.unreached ? ` ; elle n’a jamais atteint ${r.unreached}` : ''}. ` +
        `Reprise, la recherche a ${parts.length === 3 ? `${parts[0]}, ${parts[1]} et ${parts[2]}` : parts.join(' et ')}` +
        `${r.left ? ` ; rien n’a été trouvé pour ${r.left}, que le rapport signale comme ${r.leftCount === 1 ? 'lacune' : 'lacunes'}` : ''}.`
      );
    },
    whatChanged: {
      title: 'Ce qui a changé',
      since: (v) => `Ce qui a changé depuis ${v}`,
      noPrevious: (id) => `La version dont celle-ci part (${id}) n’est plus enregistrée : rien à comparer.`,
      firstRun: 'Première exécution de cette planification : rien d’antérieur à comparer.',
      compared: (id, at, c) =>
        `Par rapport à l’exécution précédente (${id}, ${at}) : ${c.newSources} sources nouvelles, ${c.changedSources} modifiées et ${c.goneSources} disparues ; ` +
        `${c.newFindings} constats nouveaux, ${c.changedFindings} modifiés et ${c.goneFindings} disparus${c.reread ? ` (${c.reread} autres ont été relus, en d’autres mots, sur des pages dont le texte n’a pas changé : non listés)` : ''}.`,
      nothingChanged: 'Rien n’a changé depuis l’exécution précédente.',
      newFindings: 'Nouveaux constats',
      changedFindings: 'Constats modifiés',
      goneFindings: 'Constats qui ne sont plus étayés',
      newSources: 'Nouvelles sources',
      changedSources: 'Sources dont le texte a changé',
      goneSources: 'Sources disparues',
      was: (before) => `(auparavant : ${before})`,
      andMore: (n) => `… et ${n} de plus`,
      nothingNew: (id) => `Rien de nouveau depuis ${id} : la recherche n’a trouvé aucune source ni aucun constat à ajouter.`,
      enhanced: (id, sources, findings, changed) =>
        `Depuis ${id} : ${sources} ${sources === 1 ? 'nouvelle source lue' : 'nouvelles sources lues'}, ${findings} ${findings === 1 ? 'nouveau constat' : 'nouveaux constats'}${changed ? `, ${changed} modifiés` : ''}.`,
      newSourcesRead: (list) => `Nouvelles sources : ${list}.`,
    },
  },
  zh: {
    resumedRun: (r) => {
      const parts = [`又阅读了 ${r.sourcesAdded} 个来源`, `新增 ${r.findingsAdded} 条发现`, ...(r.written ? [`写出了 ${r.written}`] : [])];
      return (
        `**未完成，后已继续：** ${r.run ? `第 ${r.run} 次运行` : '第一次运行'}在阅读 ${r.sourcesBefore} 个来源、得到 ${r.findingsBefore} 条发现后${r.stopped}${r.reason ? `（${r.reason}）` : ''}` +
        `${r.unreached ? `；它没有写到 ${r.unreached}` : ''}。继续后，研究${parts.join('，')}` +
        `${r.left ? `；${r.left} 没有找到任何内容，报告将其列为空白` : ''}。`
      );
    },
    whatChanged: {
      title: '变化',
      since: (v) => `自 ${v} 以来的变化`,
      noPrevious: (id) => `本版本所基于的版本（${id}）已不再保存：无从比较。`,
      firstRun: '此计划的第一次运行：没有更早的结果可比较。',
      compared: (id, at, c) =>
        `与上一次运行（${id}，${at}）相比：来源新增 ${c.newSources} 个、变化 ${c.changedSources} 个、消失 ${c.goneSources} 个；` +
        `发现新增 ${c.newFindings} 条、变化 ${c.changedFindings} 条、消失 ${c.goneFindings} 条${c.reread ? `（另有 ${c.reread} 条从文本未变的页面换了说法重新读出：未列出）` : ''}。`,
      nothingChanged: '自上一次运行以来没有任何变化。',
      newFindings: '新发现',
      changedFindings: '变化的发现',
      goneFindings: '不再有依据的发现',
      newSources: '新来源',
      changedSources: '文本有变化的来源',
      goneSources: '消失的来源',
      was: (before) => `（原为：${before}）`,
      andMore: (n) => `……另有 ${n} 条`,
      nothingNew: (id) => `自 ${id} 以来没有新内容：研究没有找到可添加的来源或发现。`,
      enhanced: (id, sources, findings, changed) => `自 ${id} 以来：阅读了 ${sources} 个新来源，新增 ${findings} 条发现${changed ? `，${changed} 条有变化` : ''}。`,
      newSourcesRead: (list) => `新来源：${list}。`,
    },
  },
  ja: {
    resumedRun: (r) => {
      const done = `情報源をさらに ${r.sourcesAdded} 件読み、調査結果を ${r.findingsAdded} 件追加し${r.written ? `、${r.written} を書きました` : 'ました'}`;
      return (
        `**未完了、その後再開：** ${r.run ? `${r.run} 回目の実行` : '最初の実行'}は情報源 ${r.sourcesBefore} 件を読み調査結果 ${r.findingsBefore} 件を得た後に${r.stopped}${r.reason ? `（${r.reason}）` : ''}` +
        `${r.unreached ? `。${r.unreached} には到達しませんでした` : ''}。再開後、調査は${done}` +
        `${r.left ? `。${r.left} については何も見つからず、報告書では空白としています` : ''}。`
      );
    },
    whatChanged: {
      title: '変更点',
      since: (v) => `${v} からの変更点`,
      noPrevious: (id) => `このバージョンの元になったバージョン（${id}）はもう保存されていません：比較する対象がありません。`,
      firstRun: 'このスケジュールの最初の実行です：比較する以前の結果はありません。',
      compared: (id, at, c) =>
        `前回の実行（${id}、${at}）と比べて：情報源は新規 ${c.newSources} 件、変更 ${c.changedSources} 件、消失 ${c.goneSources} 件。` +
        `調査結果は新規 ${c.newFindings} 件、変更 ${c.changedFindings} 件、消失 ${c.goneFindings} 件${c.reread ? `（ほかに ${c.reread} 件は本文が変わっていないページから言い換えて読み直されたもので、記載していません）` : ''}。`,
      nothingChanged: '前回の実行から変更はありません。',
      newFindings: '新しい調査結果',
      changedFindings: '変更された調査結果',
      goneFindings: '根拠がなくなった調査結果',
      newSources: '新しい情報源',
      changedSources: '本文が変わった情報源',
      goneSources: 'なくなった情報源',
      was: (before) => `（以前：${before}）`,
      andMore: (n) => `…ほか ${n} 件`,
      nothingNew: (id) => `${id} 以降、新しいものはありません：追加する情報源も調査結果も見つかりませんでした。`,
      enhanced: (id, sources, findings, changed) => `${id} 以降：新しい情報源を ${sources} 件読み、調査結果を ${findings} 件追加${changed ? `、${changed} 件を変更` : ''}しました。`,
      newSourcesRead: (list) => `新しい情報源：${list}。`,
    },
  },
};
