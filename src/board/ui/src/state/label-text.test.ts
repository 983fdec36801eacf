import { describe, expect, it } from 'vitest';
import { parseLabelText } from './label-text.js';

describe('labels typed on one line', () => {
  it('read pairs separated by commas or spaces, a key alone for an empty value', () => {
    expect(parseLabelText(' env=prod, site=fra gpu ')).toEqual({
      labels: { env: 'prod', site: 'fra', gpu: '' },
    });
    expect(parseLabelText('')).toEqual({ labels: {} });
  });

  it('name the first label that breaks the rule, or is given twice', () => {
    expect(parseLabelText('env=prod,Env=x')).toEqual({
      problem: 'label "Env": a key is 1-63 of a-z 0-9 . _ / -, starting with a letter or digit',
    });
    expect(parseLabelText('env=a env=b')).toEqual({ problem: 'label "env" is given twice' });
  });
});
