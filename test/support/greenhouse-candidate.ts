/** The candidate of Greenhouse's own send_test example (its Assessment Partner API documentation). */
export const HARRY_POTTER = Object.freeze({
  first_name: 'Harry',
  last_name: 'Potter',
  preferred_name: 'Hal',
  email: 'hpotter@hogwarts.edu',
  phone_number: '123-456-7890',
  resume_url: 'https://hogwarts.com/resume',
  greenhouse_profile_url: 'https://app.greenhouse.io/people/17681532?application_id=26234709',
});
