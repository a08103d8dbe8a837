// What the report says of an outline section whose findings the writer put under other sections,
// in each language (the final check writes it: src/report/section-findings.ts). The ids are named,
// not cited: the line says where the report says something, not what a source says.
import type { ReportLabels } from './labels-shape';

export const SECTION_LABELS: Record<'en' | 'de' | 'es' | 'fr' | 'zh' | 'ja', Pick<ReportLabels, 'saidUnder'>> = {
  en: { saidUnder: (t, under, ids) => `**Written elsewhere:** what the research found on “${t}” (from ${ids}) is said under ${under}.` },
  de: { saidUnder: (t, under, ids) => `**Steht anderswo:** Was die Recherche zu „${t}“ gefunden hat (aus ${ids}), steht unter ${under}.` },
  es: { saidUnder: (t, under, ids) => `**Dicho en otra sección:** lo que la investigación encontró sobre «${t}» (de ${ids}) figura en ${under}.` },
  fr: { saidUnder: (t, under, ids) => `**Dit ailleurs :** ce que la recherche a trouvé sur « ${t} » (dans ${ids}) figure sous ${under}.` },
  zh: { saidUnder: (t, under, ids) => `**见其他章节：** 研究关于“${t}”的发现（来自 ${ids}）写在${under}中。` },
  ja: { saidUnder: (t, under, ids) => `**別の節に記載：** 「${t}」について調査で分かったこと（${ids} より）は${under}に書かれています。` },
};
