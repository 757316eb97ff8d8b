import request from 'supertest';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { careersHarness, type CareersHarness } from './harness.js';

let h: CareersHarness;
beforeEach(() => {
  h = careersHarness();
});
afterEach(() => h.close());

const PAGE = '/careers/acme/offers/senior-backend-engineer';
const Q = (i: number, field: string) => `candidate[open_question_answers_attributes][${i}][${field}]`;

describe('the sandbox careers page', () => {
  test('lists the published offers with department and tag filters', async () => {
    const res = await request(h.app).get('/careers/acme/').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    for (const title of ['Senior Backend Engineer', 'Customer Success Manager', 'Product Designer', 'Open application']) {
      expect(res.text).toContain(title);
    }
    expect(res.text).not.toContain('Marketing Intern');
    expect(res.text).not.toContain('Frontend Engineer');
    expect(res.text).toContain('<option value="Engineering">Engineering</option>');
    expect(res.text).toContain('<option value="Remote-friendly">Remote-friendly</option>');
    // Filters offer only names of published offers: the draft's department and tag are not there.
    expect(res.text).not.toContain('<option value="Marketing">');
    expect(res.text).not.toContain('<option value="Internship">');
    expect(res.text).toContain('href="/careers/acme/offers/senior-backend-engineer"');
  });

  test('filters like the API', async () => {
    const res = await request(h.app).get('/careers/acme/?department=Design&tag=Remote-friendly').expect(200);
    expect(res.text).toContain('Product Designer');
    expect(res.text).not.toContain('Senior Backend Engineer');
    expect(res.text).toContain('<option value="Design" selected>Design</option>');
    const none = await request(h.app).get('/careers/acme/?department=Engineering&tag=Customer%20facing').expect(200);
    expect(none.text).toContain('No open positions match these filters.');
  });

  test('an offer page renders its trusted HTML and a form with a fitting input for every question kind', async () => {
    const res = await request(h.app).get(PAGE).expect(200);
    const html = res.text;
    expect(html).toContain('<strong>logistics platform</strong>');
    expect(html).toMatch(/<form class="apply" method="post" action="\/careers\/acme\/offers\/senior-backend-engineer\/apply\?async=true" enctype="multipart\/form-data" novalidate>/);
    expect(html).toContain('name="candidate[name]"');
    expect(html).toContain('type="email" id="candidate_email" name="candidate[email]"');
    expect(html).toContain('type="file" id="candidate_cv" name="candidate[cv]"');
    expect(html).toContain('type="file" id="candidate_photo" name="candidate[photo]" accept="image/*"');
    expect(html).toContain('<input type="checkbox" name="candidate[location_ids][]" value="12"> Berlin office');
    expect(html).toContain('Which office would you like to work from?');

    expect(html).toContain(`<input type="hidden" name="${Q(0, 'open_question_id')}" value="1001">`);
    expect(html).toContain(`<input type="text" id="q1001" name="${Q(0, 'content')}" value="">`); // string
    expect(html).toContain(`<textarea id="q1002" name="${Q(1, 'content')}" rows="4"></textarea>`); // text
    expect(html).toContain(`<input type="radio" name="${Q(2, 'flag')}" value="true"> Yes`); // boolean
    expect(html).toContain(`<input type="radio" name="${Q(2, 'flag')}" value="false"> No`);
    expect(html).toContain(`<input type="radio" name="${Q(3, 'content')}" value="5002"> 2 to 5`); // single_choice
    expect(html).toContain(`<input type="checkbox" name="${Q(4, 'multi_content')}[]" value="5005"> SQLite`); // multi_choice
    expect(html).toContain(`<input type="date" id="q1006" name="${Q(5, 'content')}" value="">`); // date
    expect(html).toContain(`<input type="number" step="any" id="q1007" name="${Q(6, 'content')}" value="">`); // number
    expect(html).toContain(`<input type="number" step="any" min="0" id="q1008" name="${Q(7, 'content')}" value="">`); // salary
    expect(html).toContain('Amount in EUR');
    expect(html).toContain(`<input type="file" id="q1009" name="${Q(8, 'file')}" accept="video/*">`); // video
    expect(html).toContain('At most 120 seconds');
    expect(html).toContain(`<input type="file" id="q1010" name="${Q(9, 'file')}">`); // file
    expect(html).toContain('<div class="infobox"><p>Our process: a <strong>30-minute call</strong>'); // infobox
    expect(html).not.toContain(`name="${Q(10, 'open_question_id')}"`);
    expect(html).toContain('<div class="legal"><p>I agree that Acme stores my application'); // legal
    expect(html).toContain(`<input type="checkbox" id="q1012" name="${Q(11, 'flag')}" value="true"> I agree`);
    expect(html).not.toMatch(/<script|\son[a-z]+=/i);
  });

  test('shows the offer in a translation', async () => {
    const res = await request(h.app).get(`${PAGE}?lang=nl`).expect(200);
    expect(res.text).toContain('<h1>Senior backend-engineer</h1>');
    expect(res.text).toContain('Wat is je huidige functietitel?');
    expect(res.text).toContain('> Meer dan 5');
  });

  test('a form sent with errors comes back with the messages and the typed values, escaped', async () => {
    const res = await request(h.app)
      .post(`${PAGE}/apply?async=true`)
      .field('candidate[name]', '<script>alert(1)</script>')
      .field('candidate[email]', 'not-an-address')
      .field('candidate[location_ids][]', '11')
      .field(Q(0, 'open_question_id'), '1001')
      .field(Q(0, 'content'), '"><img src=x>')
      .field(Q(1, 'open_question_id'), '1006')
      .field(Q(1, 'content'), 'tomorrow')
      .expect(422);
    expect(res.text).toContain('must be a valid e-mail address');
    expect(res.text).toContain('must be a date as YYYY-MM-DD');
    expect(res.text).toContain('cv is required');
    expect(res.text).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(res.text).toContain('value="&quot;&gt;&lt;img src=x&gt;"');
    expect(res.text).toContain('<input type="checkbox" name="candidate[location_ids][]" value="11" checked> Amsterdam HQ');
    expect(res.text).not.toContain('<script>alert(1)</script>');
    expect(res.text).not.toContain('<img src=x>');
    expect(h.count('candidates')).toBe(4);
  });

  test('a complete form creates the candidate and shows the confirmation', async () => {
    const res = await request(h.app)
      .post(`${PAGE}/apply?async=true`)
      .field('candidate[name]', 'Ada Applicant')
      .field('candidate[email]', 'ada.applicant@example.com')
      .attach('candidate[cv]', Buffer.from('%PDF'), { filename: 'cv.pdf', contentType: 'application/pdf' })
      .field('candidate[location_ids][]', '11')
      .field(Q(4, 'open_question_id'), '1005')
      .field(`${Q(4, 'multi_content')}[]`, '5004')
      .field(`${Q(4, 'multi_content')}[]`, '5006')
      .expect(201);
    expect(res.text).toContain('Thank you, Ada Applicant!');
    expect(res.text).toContain('PostgreSQL, MongoDB');
    expect(h.count('candidates')).toBe(5);
    expect(h.mail.list()).toHaveLength(1);
  });

  test('an unknown company or offer is a 404 page', async () => {
    const company = await request(h.app).get('/careers/nope/').expect(404);
    expect(company.headers['content-type']).toMatch(/^text\/html/);
    expect(company.text).toContain('404 — Not Found');
    await request(h.app).get('/careers/acme/offers/marketing-intern').expect(404);
  });
});
