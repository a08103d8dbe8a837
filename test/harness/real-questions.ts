// The questions asked in the real-page world, chosen by what the corpus holds (44 % German pages,
// many news pages), five kinds:
//   answered        several pages answer it;
//   partial         pages answer one part, nothing in the corpus answers the other;
//   unanswerable    nothing in the corpus is about it, yet BM25 finds pages sharing its words;
//   other-words     the pages that answer it say it in other words than the question ("how did
//                   reviewers judge" answered by a review; "meat-free dinners" by a vegan noodle
//                   recipe; "head of government detained" by "Premier arrested");
//   cross-language  asked in German, Spanish or French about what only the corpus's English pages
//                   answer.
// Each carries the plan a model would draft for it (queries in the question's language, one in
// English where a model would add one). Which corpus pages are on topic for each is a person's
// judgement, kept in real-judgements.json (see Judgement). REAL_QUESTIONS are the first three
// kinds, MEANING_QUESTIONS (issue 37) the last two; ALL_REAL_QUESTIONS both.
import type { GroundedPlan } from './grounded-model';
import judgements from './real-judgements.json';

export type QuestionKind = 'answered' | 'partial' | 'unanswerable' | 'other-words' | 'cross-language';

export interface RealQuestion {
  id: string;
  kind: QuestionKind;
  question: string;
  plan: GroundedPlan;
}

/**
 * A person's reading of the pages the question's searches find (file names without .html), by
 * each page's own title and text: on topic when it addresses a part of the question; borderline
 * when it is about the subject area but not the question (offshore wind in California for a
 * question about Germany); off topic otherwise. No page in the corpus is about an unanswerable
 * question (a search of the whole corpus text finds no page on metformin, on penguin numbers or
 * on nurses' pay), so every page is off topic for those.
 */
export interface Judgement {
  on_topic: string[];
  borderline: string[];
  /** The other pages reviewed; a cited page in none of the three lists is reported as unjudged. */
  off_topic: string[];
}

export const JUDGEMENTS = judgements as Record<string, Judgement>;

export type Verdict = 'on' | 'borderline' | 'off' | 'unjudged';

export function verdictFor(question: RealQuestion, pageKey: string): Verdict {
  const j = JUDGEMENTS[question.id];
  if (question.kind === 'unanswerable') return 'off';
  if (j.on_topic.includes(pageKey)) return 'on';
  if (j.borderline.includes(pageKey)) return 'borderline';
  return j.off_topic.includes(pageKey) ? 'off' : 'unjudged';
}

export const REAL_QUESTIONS: RealQuestion[] = [
  {
    id: 'lithium',
    kind: 'answered',
    question: 'Wie wird Lithium aus alten Batterien zurückgewonnen?',
    plan: {
      queries: ['Lithium Recycling Batterien Verfahren', 'Lithium Rückgewinnung Altbatterien', 'Batterierecycling Anlage Deutschland', 'lithium battery recycling process'],
      outline: ['Verfahren', 'Anlagen und Kapazitäten', 'Wirtschaftlichkeit und Ausblick'],
    },
  },
  {
    id: 'offshore-wind',
    kind: 'answered',
    question: 'Welche Rolle spielt die Offshore-Windenergie für die Energiewende in Deutschland?',
    plan: {
      queries: ['Offshore-Windenergie Deutschland Energiewende', 'Offshore Windparks Nordsee Ostsee Ausbau', 'Windenergie auf See Netzanbindung', 'Offshore-Wind Ausbauziele 2030'],
      outline: ['Stand des Ausbaus', 'Beitrag zur Stromversorgung', 'Hürden und Netzanbindung'],
    },
  },
  {
    id: 'climate-disasters',
    kind: 'answered',
    question: 'How is climate change making natural disasters such as wildfires and heat waves worse?',
    plan: {
      queries: ['climate change wildfires', 'climate change extreme heat waves', 'global warming natural disasters increase', 'hottest year on record climate'],
      outline: ['Wildfires', 'Heat and extreme weather', 'What the science says'],
    },
  },
  {
    id: 'tesla',
    kind: 'partial',
    question: 'Plant Tesla eine zweite Fabrik in China, und wie viele Autos hat Tesla 2023 in Deutschland ausgeliefert?',
    plan: {
      queries: ['Tesla zweite Fabrik China', 'Tesla Gigafactory Shanghai Ausbau', 'Tesla Auslieferungen Deutschland 2023', 'Tesla Neuzulassungen Deutschland'],
      outline: ['Tesla in China', 'Tesla-Verkäufe in Deutschland', 'Einordnung'],
    },
  },
  {
    id: 'python',
    kind: 'partial',
    question: 'What are the most common mistakes Python developers make, and how much faster is Python 3.12 than Python 3.6?',
    plan: {
      queries: ['common mistakes Python developers', 'Python pitfalls beginners', 'Python 3.12 performance benchmark', 'Python 3.6 vs 3.12 speed'],
      outline: ['Common mistakes', 'Performance across versions', 'Recommendations'],
    },
  },
  {
    id: 'wine',
    kind: 'partial',
    question: 'Wie dekantiert man Wein richtig, und welche Weine aus Chile eignen sich dafür?',
    plan: {
      queries: ['Wein dekantieren Anleitung', 'Rotwein dekantieren wie lange', 'chilenischer Rotwein dekantieren', 'Weine aus Chile Empfehlung'],
      outline: ['Richtig dekantieren', 'Geeignete Weine aus Chile', 'Tipps'],
    },
  },
  {
    id: 'metformin',
    kind: 'unanswerable',
    question: 'What are the side effects of metformin for people with type 2 diabetes?',
    plan: {
      queries: ['metformin side effects', 'metformin type 2 diabetes adverse effects', 'metformin lactic acidosis risk', 'metformin gastrointestinal side effects'],
      outline: ['Common side effects', 'Rare but serious risks', 'Who should avoid it'],
    },
  },
  {
    id: 'penguins',
    kind: 'unanswerable',
    question: 'Wie viele Pinguine leben in der Antarktis und geht ihr Bestand zurück?',
    plan: {
      queries: ['Pinguine Antarktis Bestand', 'Kaiserpinguin Population Rückgang', 'Pinguinkolonien Zählung Satellit', 'penguin population Antarctica decline'],
      outline: ['Bestandszahlen', 'Entwicklung und Ursachen', 'Schutz'],
    },
  },
  {
    id: 'nurse-salary',
    kind: 'unanswerable',
    question: 'What is the average salary of a nurse in Norway?',
    plan: {
      queries: ['average nurse salary Norway', 'Norway registered nurse pay', 'sykepleier lønn', 'nursing wages Scandinavia comparison'],
      outline: ['Average pay', 'How pay is set', 'Comparison with other countries'],
    },
  },
];

/** Questions whose answer only meaning finds: in other words than the question's, or in another language. */
export const MEANING_QUESTIONS: RealQuestion[] = [
  {
    id: 'caribbean-drugs',
    kind: 'other-words',
    question: 'How are the authorities fighting drug trafficking through the Caribbean?',
    plan: {
      queries: ['Caribbean drug trafficking enforcement', 'cocaine smuggling Caribbean interception', 'DEA operation Caribbean arrest', 'Caribbean drug trade crackdown 2022'],
      outline: ['Interceptions at sea', 'Arrests and prosecutions', 'What it says about the trade'],
    },
  },
  {
    id: 'democratic-hopefuls',
    kind: 'other-words',
    question: 'How were the Democratic presidential hopefuls faring in early 2020?',
    plan: {
      queries: ['2020 Democratic primary candidates', 'Democratic presidential race early 2020', 'Democratic candidates polls endorsements 2020', 'Democratic primary voters support'],
      outline: ['Where the race stood', 'Endorsements and support', 'The voters who decide it'],
    },
  },
  {
    id: 'meat-free-dinners',
    kind: 'other-words',
    question: 'What meat-free dinners can I cook at home?',
    plan: {
      queries: ['meat-free dinner recipes', 'vegetarian dinner ideas', 'easy vegan main dishes', 'plant-based home cooking'],
      outline: ['Dishes', 'Ingredients', 'Tips'],
    },
  },
  {
    id: 'flowering-shrubs',
    kind: 'other-words',
    question: 'How should I look after flowering shrubs so that they bloom every year?',
    plan: {
      queries: ['flowering shrub care', 'how to get shrubs to bloom every year', 'pruning flowering shrubs', 'watering and fertilizing flowering plants'],
      outline: ['Light and soil', 'Watering and feeding', 'Pruning for blooms'],
    },
  },
  {
    id: 'tech-climate',
    kind: 'other-words',
    question: 'What are big technology companies doing about their effect on the climate?',
    plan: {
      queries: ['tech companies climate pledge', 'big tech carbon emissions reduction', 'technology industry net zero commitment', 'data centers energy use climate'],
      outline: ['Pledges', 'What they do', 'Criticism'],
    },
  },
  {
    id: 'darkest-review',
    kind: 'other-words',
    question: 'How did reviewers judge the game Through the Darkest of Times?',
    plan: {
      queries: ['Through the Darkest of Times review', 'Through the Darkest of Times critics', 'Through the Darkest of Times gameplay', 'Through the Darkest of Times verdict'],
      outline: ['What the game is', 'What reviewers praised', 'What they criticised'],
    },
  },
  {
    id: 'parasite-reception',
    kind: 'other-words',
    question: 'How was the film Parasite received during the awards season?',
    plan: {
      queries: ['Parasite awards season', 'Parasite film reception', 'Parasite Oscar chances', 'Bong Joon-ho Parasite awards'],
      outline: ['Awards won', 'Critics and audiences', 'Oscar prospects'],
    },
  },
  {
    id: 'de-bvi-premier',
    kind: 'cross-language',
    question: 'Warum wurde der Regierungschef der Britischen Jungferninseln in den USA festgenommen?',
    plan: {
      queries: ['Britische Jungferninseln Premier festgenommen', 'Jungferninseln Regierungschef Verhaftung USA', 'Andrew Fahie Festnahme Drogen', 'British Virgin Islands premier arrested'],
      outline: ['Die Festnahme', 'Die Vorwürfe', 'Reaktionen'],
    },
  },
  {
    id: 'de-tech-climate',
    kind: 'cross-language',
    question: 'Was unternimmt Microsoft, um seinen CO2-Fußabdruck zu verringern?',
    plan: {
      queries: ['Microsoft CO2-Fußabdruck', 'Microsoft klimaneutral CO2-negativ', 'Microsoft Klimaschutz Ziele', 'Microsoft carbon negative pledge'],
      outline: ['Die Ziele', 'Die Maßnahmen', 'Kritik'],
    },
  },
  {
    id: 'es-blackouts',
    kind: 'cross-language',
    question: '¿Por qué hubo apagones en California durante la ola de calor?',
    plan: {
      queries: ['apagones California ola de calor', 'cortes de electricidad California calor', 'red eléctrica California demanda', 'California rolling blackouts heat wave'],
      outline: ['Qué pasó', 'Las causas', 'Qué se puede hacer'],
    },
  },
  {
    id: 'es-hydrangea',
    kind: 'cross-language',
    question: '¿Cómo se cuidan las hortensias para que florezcan?',
    plan: {
      queries: ['cuidado de hortensias', 'hortensias floración poda', 'hortensias riego y suelo', 'hydrangea care blooming'],
      outline: ['Luz y suelo', 'Riego', 'Poda'],
    },
  },
  {
    id: 'fr-body-fat',
    kind: 'cross-language',
    question: 'Comment mesurer son pourcentage de graisse corporelle ?',
    plan: {
      queries: ['mesurer pourcentage de graisse corporelle', 'méthodes mesure masse grasse', 'pince à plis cutanés impédancemétrie', 'how to measure body fat percentage'],
      outline: ['Méthodes simples', 'Méthodes précises', 'Limites'],
    },
  },
  {
    id: 'fr-wikipedia-turkey',
    kind: 'cross-language',
    question: "Pourquoi l'accès à Wikipédia a-t-il été rétabli en Turquie ?",
    plan: {
      queries: ['Wikipédia Turquie accès rétabli', 'Turquie blocage Wikipédia Cour constitutionnelle', 'Wikipédia censure Turquie', 'Wikipedia access restored Turkey'],
      outline: ['Le blocage', 'La décision', 'Les réactions'],
    },
  },
];

export const ALL_REAL_QUESTIONS: RealQuestion[] = [...REAL_QUESTIONS, ...MEANING_QUESTIONS];

/** The session enhanced with a focus: the focus names what an unread page of the corpus is about (California's rolling blackouts in a heat wave). */
export const ENHANCED = { question: 'How is climate change making natural disasters such as wildfires and heat waves worse?', focus: 'rolling blackouts in California during heat waves' };

export const REAL_PLANS = new Map(ALL_REAL_QUESTIONS.map((q) => [q.question, q.plan]));
