// What a field holds, in words: the field types' labels (docs/definition-language.md) and a relationship's target.

export const TYPE_LABELS = {
  p_TEXT: 'Text',
  p_NUMBER: 'Number',
  p_BOOLEAN: 'Yes / no',
  p_DATE: 'Date',
  p_DATE_TIME: 'Date and time',
  p_TIME: 'Time',
  p_STAR_RATING: 'Star rating',
  p_LINK: 'Link',
  p_IMAGE: 'Image',
  p_VIDEO: 'Video',
  p_FILE: 'File',
  p_PHONE_NUMBER: 'Phone number',
  p_ADDRESS: 'Address',
  p_CURRENCY_AMOUNT: 'Amount of money',
};

/** `Text`, `Text (list)`, `→ Album`, `→ many Track` for a field of `models`. */
export function typeLabel(models, field) {
  const many = field.max === null || field.max > 1;
  const target = models.find((m) => m.id === field.to);
  if (target) return many ? `→ many ${target.name}` : `→ ${target.name}`;
  const label = TYPE_LABELS[field.to] ?? field.to;
  return many ? `${label} (list)` : label;
}

/** The relationships of a model: each field pointing at another model, with that model's name. */
export function relationshipsOf(models, model) {
  return model.fields.flatMap((field) => {
    const target = models.find((m) => m.id === field.to);
    return target ? [{ field, target, many: field.max === null || field.max > 1 }] : [];
  });
}
