/**
 * Generated validators (ajv standalone code, compiled at generate time) by keiyaku from asyncapi.yaml: Library integration events 1.2.0 (AsyncAPI 3.0.0).
 * Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.
 */
// @ts-nocheck -- ajv output is plain JavaScript; the typed surface is in messages.ts
import { ajvRuntime } from "keiyaku/codegen-v1";

export const validateBookBorrowedPayload = validate53;
const schema20 = {"type":"object","description":"A member borrowed a copy of a book.","required":["bookId","copyId","borrower","borrowedAt","dueAt","channel"],"properties":{"bookId":{"$ref":"#/$defs/BookId"},"copyId":{"type":"string","minLength":1},"borrower":{"$ref":"#/$defs/Member"},"borrowedAt":{"type":"string","format":"date-time"},"dueAt":{"type":"string","format":"date-time"},"channel":{"type":"string","enum":["desk","self-service","app"],"description":"Where the loan was made."},"renewals":{"type":"integer","minimum":0,"maximum":3,"default":0},"note":{"type":["string","null"],"maxLength":500,"description":"Free text from the librarian, if any."}}};
const func0 = Object.prototype.hasOwnProperty;
const func68 = ajvRuntime.ucs2length;
const schema21 = {"type":"string","format":"uuid","description":"Aggregate id of the book."};
const formats0 = /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;

function validate54(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate54.evaluated;
  if(evaluated0.dynamicProps){
    evaluated0.props = undefined;
  }
  if(evaluated0.dynamicItems){
    evaluated0.items = undefined;
  }
  if(errors === 0){
    if(errors === 0){
      if(typeof data === "string"){
        if(!(formats0.test(data))){
          validate54.errors = [{instancePath,schemaPath:"#/format",keyword:"format",params:{format: "uuid"},message:"must match format \""+"uuid"+"\""}];
          return false;
        }
      }
      else {
        validate54.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "string"},message:"must be string"}];
        return false;
      }
    }
  }
  validate54.errors = vErrors;
  return errors === 0;
}
validate54.evaluated = {"dynamicProps":false,"dynamicItems":false};

const schema22 = {"type":"object","description":"The member, as other contexts may show them.","required":["memberId"],"properties":{"memberId":{"$ref":"#/$defs/MemberId"},"displayName":{"type":"string","maxLength":80}}};
const schema23 = {"type":"string","pattern":"^M-[0-9]{4,}$","description":"Library card number."};
const pattern3 = new RegExp("^M-[0-9]{4,}$", "u");

function validate57(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate57.evaluated;
  if(evaluated0.dynamicProps){
    evaluated0.props = undefined;
  }
  if(evaluated0.dynamicItems){
    evaluated0.items = undefined;
  }
  if(errors === 0){
    if(typeof data === "string"){
      if(!pattern3.test(data)){
        validate57.errors = [{instancePath,schemaPath:"#/pattern",keyword:"pattern",params:{pattern: "^M-[0-9]{4,}$"},message:"must match pattern \""+"^M-[0-9]{4,}$"+"\""}];
        return false;
      }
    }
    else {
      validate57.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "string"},message:"must be string"}];
      return false;
    }
  }
  validate57.errors = vErrors;
  return errors === 0;
}
validate57.evaluated = {"dynamicProps":false,"dynamicItems":false};

function validate56(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate56.evaluated;
  if(evaluated0.dynamicProps){
    evaluated0.props = undefined;
  }
  if(evaluated0.dynamicItems){
    evaluated0.items = undefined;
  }
  if(errors === 0){
    if(data && typeof data == "object" && !Array.isArray(data)){
      let missing0;
      if(((data.memberId === undefined) || (!(func0.call(data, "memberId")))) && (missing0 = "memberId")){
        validate56.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0},message:"must have required property '"+missing0+"'"}];
        return false;
      }
      else {
        if(data.memberId !== undefined && func0.call(data, "memberId")){
          const _errs1 = errors;
          if(!(validate57(data.memberId, {instancePath:instancePath+"/memberId",parentData:data,parentDataProperty:"memberId",rootData,dynamicAnchors}))){
            vErrors = vErrors === null ? validate57.errors : vErrors.concat(validate57.errors);
            errors = vErrors.length;
          }
          var valid0 = _errs1 === errors;
        }
        else {
          var valid0 = true;
        }
        if(valid0){
          if(data.displayName !== undefined && func0.call(data, "displayName")){
            let data1 = data.displayName;
            const _errs2 = errors;
            if(errors === _errs2){
              if(typeof data1 === "string"){
                if(func68(data1) > 80){
                  validate56.errors = [{instancePath:instancePath+"/displayName",schemaPath:"#/properties/displayName/maxLength",keyword:"maxLength",params:{limit: 80},message:"must NOT have more than 80 characters"}];
                  return false;
                }
              }
              else {
                validate56.errors = [{instancePath:instancePath+"/displayName",schemaPath:"#/properties/displayName/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                return false;
              }
            }
            var valid0 = _errs2 === errors;
          }
          else {
            var valid0 = true;
          }
        }
      }
    }
    else {
      validate56.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"}];
      return false;
    }
  }
  validate56.errors = vErrors;
  return errors === 0;
}
validate56.evaluated = {"props":{"memberId":true,"displayName":true},"dynamicProps":false,"dynamicItems":false};

const formats2 = ajvRuntime.formats["date-time"];

function validate53(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate53.evaluated;
  if(evaluated0.dynamicProps){
    evaluated0.props = undefined;
  }
  if(evaluated0.dynamicItems){
    evaluated0.items = undefined;
  }
  if(errors === 0){
    if(data && typeof data == "object" && !Array.isArray(data)){
      let missing0;
      if((((((((data.bookId === undefined) || (!(func0.call(data, "bookId")))) && (missing0 = "bookId")) || (((data.copyId === undefined) || (!(func0.call(data, "copyId")))) && (missing0 = "copyId"))) || (((data.borrower === undefined) || (!(func0.call(data, "borrower")))) && (missing0 = "borrower"))) || (((data.borrowedAt === undefined) || (!(func0.call(data, "borrowedAt")))) && (missing0 = "borrowedAt"))) || (((data.dueAt === undefined) || (!(func0.call(data, "dueAt")))) && (missing0 = "dueAt"))) || (((data.channel === undefined) || (!(func0.call(data, "channel")))) && (missing0 = "channel"))){
        validate53.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0},message:"must have required property '"+missing0+"'"}];
        return false;
      }
      else {
        if(data.bookId !== undefined && func0.call(data, "bookId")){
          const _errs1 = errors;
          if(!(validate54(data.bookId, {instancePath:instancePath+"/bookId",parentData:data,parentDataProperty:"bookId",rootData,dynamicAnchors}))){
            vErrors = vErrors === null ? validate54.errors : vErrors.concat(validate54.errors);
            errors = vErrors.length;
          }
          var valid0 = _errs1 === errors;
        }
        else {
          var valid0 = true;
        }
        if(valid0){
          if(data.copyId !== undefined && func0.call(data, "copyId")){
            let data1 = data.copyId;
            const _errs2 = errors;
            if(errors === _errs2){
              if(typeof data1 === "string"){
                if(func68(data1) < 1){
                  validate53.errors = [{instancePath:instancePath+"/copyId",schemaPath:"#/properties/copyId/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters"}];
                  return false;
                }
              }
              else {
                validate53.errors = [{instancePath:instancePath+"/copyId",schemaPath:"#/properties/copyId/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                return false;
              }
            }
            var valid0 = _errs2 === errors;
          }
          else {
            var valid0 = true;
          }
          if(valid0){
            if(data.borrower !== undefined && func0.call(data, "borrower")){
              const _errs4 = errors;
              if(!(validate56(data.borrower, {instancePath:instancePath+"/borrower",parentData:data,parentDataProperty:"borrower",rootData,dynamicAnchors}))){
                vErrors = vErrors === null ? validate56.errors : vErrors.concat(validate56.errors);
                errors = vErrors.length;
              }
              var valid0 = _errs4 === errors;
            }
            else {
              var valid0 = true;
            }
            if(valid0){
              if(data.borrowedAt !== undefined && func0.call(data, "borrowedAt")){
                let data3 = data.borrowedAt;
                const _errs5 = errors;
                if(errors === _errs5){
                  if(errors === _errs5){
                    if(typeof data3 === "string"){
                      if(!(formats2.validate(data3))){
                        validate53.errors = [{instancePath:instancePath+"/borrowedAt",schemaPath:"#/properties/borrowedAt/format",keyword:"format",params:{format: "date-time"},message:"must match format \""+"date-time"+"\""}];
                        return false;
                      }
                    }
                    else {
                      validate53.errors = [{instancePath:instancePath+"/borrowedAt",schemaPath:"#/properties/borrowedAt/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                      return false;
                    }
                  }
                }
                var valid0 = _errs5 === errors;
              }
              else {
                var valid0 = true;
              }
              if(valid0){
                if(data.dueAt !== undefined && func0.call(data, "dueAt")){
                  let data4 = data.dueAt;
                  const _errs7 = errors;
                  if(errors === _errs7){
                    if(errors === _errs7){
                      if(typeof data4 === "string"){
                        if(!(formats2.validate(data4))){
                          validate53.errors = [{instancePath:instancePath+"/dueAt",schemaPath:"#/properties/dueAt/format",keyword:"format",params:{format: "date-time"},message:"must match format \""+"date-time"+"\""}];
                          return false;
                        }
                      }
                      else {
                        validate53.errors = [{instancePath:instancePath+"/dueAt",schemaPath:"#/properties/dueAt/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                        return false;
                      }
                    }
                  }
                  var valid0 = _errs7 === errors;
                }
                else {
                  var valid0 = true;
                }
                if(valid0){
                  if(data.channel !== undefined && func0.call(data, "channel")){
                    let data5 = data.channel;
                    const _errs9 = errors;
                    if(typeof data5 !== "string"){
                      validate53.errors = [{instancePath:instancePath+"/channel",schemaPath:"#/properties/channel/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                      return false;
                    }
                    if(!(((data5 === "desk") || (data5 === "self-service")) || (data5 === "app"))){
                      validate53.errors = [{instancePath:instancePath+"/channel",schemaPath:"#/properties/channel/enum",keyword:"enum",params:{allowedValues: schema20.properties.channel.enum},message:"must be equal to one of the allowed values"}];
                      return false;
                    }
                    var valid0 = _errs9 === errors;
                  }
                  else {
                    var valid0 = true;
                  }
                  if(valid0){
                    if(data.renewals !== undefined && func0.call(data, "renewals")){
                      let data6 = data.renewals;
                      const _errs11 = errors;
                      if(!((typeof data6 == "number") && (!(data6 % 1) && !isNaN(data6)))){
                        validate53.errors = [{instancePath:instancePath+"/renewals",schemaPath:"#/properties/renewals/type",keyword:"type",params:{type: "integer"},message:"must be integer"}];
                        return false;
                      }
                      if(errors === _errs11){
                        if(typeof data6 == "number"){
                          if(data6 > 3 || isNaN(data6)){
                            validate53.errors = [{instancePath:instancePath+"/renewals",schemaPath:"#/properties/renewals/maximum",keyword:"maximum",params:{comparison: "<=", limit: 3},message:"must be <= 3"}];
                            return false;
                          }
                          else {
                            if(data6 < 0 || isNaN(data6)){
                              validate53.errors = [{instancePath:instancePath+"/renewals",schemaPath:"#/properties/renewals/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0"}];
                              return false;
                            }
                          }
                        }
                      }
                      var valid0 = _errs11 === errors;
                    }
                    else {
                      var valid0 = true;
                    }
                    if(valid0){
                      if(data.note !== undefined && func0.call(data, "note")){
                        let data7 = data.note;
                        const _errs13 = errors;
                        if((typeof data7 !== "string") && (data7 !== null)){
                          validate53.errors = [{instancePath:instancePath+"/note",schemaPath:"#/properties/note/type",keyword:"type",params:{type: schema20.properties.note.type},message:"must be string,null"}];
                          return false;
                        }
                        if(errors === _errs13){
                          if(typeof data7 === "string"){
                            if(func68(data7) > 500){
                              validate53.errors = [{instancePath:instancePath+"/note",schemaPath:"#/properties/note/maxLength",keyword:"maxLength",params:{limit: 500},message:"must NOT have more than 500 characters"}];
                              return false;
                            }
                          }
                        }
                        var valid0 = _errs13 === errors;
                      }
                      else {
                        var valid0 = true;
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    else {
      validate53.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"}];
      return false;
    }
  }
  validate53.errors = vErrors;
  return errors === 0;
}
validate53.evaluated = {"props":{"bookId":true,"copyId":true,"borrower":true,"borrowedAt":true,"dueAt":true,"channel":true,"renewals":true,"note":true},"dynamicProps":false,"dynamicItems":false};

export const validateBookReturnedPayload = validate60;
const schema24 = {"type":"object","required":["bookId","copyId","memberId","returnedAt","condition"],"properties":{"bookId":{"$ref":"#/$defs/BookId"},"copyId":{"type":"string","minLength":1},"memberId":{"$ref":"#/$defs/MemberId"},"returnedAt":{"type":"string","format":"date-time"},"condition":{"type":"string","enum":["good","worn","damaged"]},"lateFee":{"$ref":"#/$defs/BookReturnedPayloadLateFee"}}};
const schema25 = {"type":"object","description":"Present when the copy came back late.","required":["amount","currency"],"additionalProperties":false,"properties":{"amount":{"type":"number","exclusiveMinimum":0},"currency":{"type":"string","pattern":"^[A-Z]{3}$"}}};
const pattern4 = new RegExp("^[A-Z]{3}$", "u");

function validate63(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate63.evaluated;
  if(evaluated0.dynamicProps){
    evaluated0.props = undefined;
  }
  if(evaluated0.dynamicItems){
    evaluated0.items = undefined;
  }
  if(errors === 0){
    if(data && typeof data == "object" && !Array.isArray(data)){
      let missing0;
      if((((data.amount === undefined) || (!(func0.call(data, "amount")))) && (missing0 = "amount")) || (((data.currency === undefined) || (!(func0.call(data, "currency")))) && (missing0 = "currency"))){
        validate63.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0},message:"must have required property '"+missing0+"'"}];
        return false;
      }
      else {
        const _errs1 = errors;
        for(const key0 of Object.keys(data)){
          if(!((key0 === "amount") || (key0 === "currency"))){
            validate63.errors = [{instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties"}];
            return false;
            break;
          }
        }
        if(_errs1 === errors){
          if(data.amount !== undefined && func0.call(data, "amount")){
            let data0 = data.amount;
            const _errs2 = errors;
            if(errors === _errs2){
              if(typeof data0 == "number"){
                if(data0 <= 0 || isNaN(data0)){
                  validate63.errors = [{instancePath:instancePath+"/amount",schemaPath:"#/properties/amount/exclusiveMinimum",keyword:"exclusiveMinimum",params:{comparison: ">", limit: 0},message:"must be > 0"}];
                  return false;
                }
              }
              else {
                validate63.errors = [{instancePath:instancePath+"/amount",schemaPath:"#/properties/amount/type",keyword:"type",params:{type: "number"},message:"must be number"}];
                return false;
              }
            }
            var valid0 = _errs2 === errors;
          }
          else {
            var valid0 = true;
          }
          if(valid0){
            if(data.currency !== undefined && func0.call(data, "currency")){
              let data1 = data.currency;
              const _errs4 = errors;
              if(errors === _errs4){
                if(typeof data1 === "string"){
                  if(!pattern4.test(data1)){
                    validate63.errors = [{instancePath:instancePath+"/currency",schemaPath:"#/properties/currency/pattern",keyword:"pattern",params:{pattern: "^[A-Z]{3}$"},message:"must match pattern \""+"^[A-Z]{3}$"+"\""}];
                    return false;
                  }
                }
                else {
                  validate63.errors = [{instancePath:instancePath+"/currency",schemaPath:"#/properties/currency/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                  return false;
                }
              }
              var valid0 = _errs4 === errors;
            }
            else {
              var valid0 = true;
            }
          }
        }
      }
    }
    else {
      validate63.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"}];
      return false;
    }
  }
  validate63.errors = vErrors;
  return errors === 0;
}
validate63.evaluated = {"props":true,"dynamicProps":false,"dynamicItems":false};

function validate60(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate60.evaluated;
  if(evaluated0.dynamicProps){
    evaluated0.props = undefined;
  }
  if(evaluated0.dynamicItems){
    evaluated0.items = undefined;
  }
  if(errors === 0){
    if(data && typeof data == "object" && !Array.isArray(data)){
      let missing0;
      if(((((((data.bookId === undefined) || (!(func0.call(data, "bookId")))) && (missing0 = "bookId")) || (((data.copyId === undefined) || (!(func0.call(data, "copyId")))) && (missing0 = "copyId"))) || (((data.memberId === undefined) || (!(func0.call(data, "memberId")))) && (missing0 = "memberId"))) || (((data.returnedAt === undefined) || (!(func0.call(data, "returnedAt")))) && (missing0 = "returnedAt"))) || (((data.condition === undefined) || (!(func0.call(data, "condition")))) && (missing0 = "condition"))){
        validate60.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0},message:"must have required property '"+missing0+"'"}];
        return false;
      }
      else {
        if(data.bookId !== undefined && func0.call(data, "bookId")){
          const _errs1 = errors;
          if(!(validate54(data.bookId, {instancePath:instancePath+"/bookId",parentData:data,parentDataProperty:"bookId",rootData,dynamicAnchors}))){
            vErrors = vErrors === null ? validate54.errors : vErrors.concat(validate54.errors);
            errors = vErrors.length;
          }
          var valid0 = _errs1 === errors;
        }
        else {
          var valid0 = true;
        }
        if(valid0){
          if(data.copyId !== undefined && func0.call(data, "copyId")){
            let data1 = data.copyId;
            const _errs2 = errors;
            if(errors === _errs2){
              if(typeof data1 === "string"){
                if(func68(data1) < 1){
                  validate60.errors = [{instancePath:instancePath+"/copyId",schemaPath:"#/properties/copyId/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters"}];
                  return false;
                }
              }
              else {
                validate60.errors = [{instancePath:instancePath+"/copyId",schemaPath:"#/properties/copyId/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                return false;
              }
            }
            var valid0 = _errs2 === errors;
          }
          else {
            var valid0 = true;
          }
          if(valid0){
            if(data.memberId !== undefined && func0.call(data, "memberId")){
              const _errs4 = errors;
              if(!(validate57(data.memberId, {instancePath:instancePath+"/memberId",parentData:data,parentDataProperty:"memberId",rootData,dynamicAnchors}))){
                vErrors = vErrors === null ? validate57.errors : vErrors.concat(validate57.errors);
                errors = vErrors.length;
              }
              var valid0 = _errs4 === errors;
            }
            else {
              var valid0 = true;
            }
            if(valid0){
              if(data.returnedAt !== undefined && func0.call(data, "returnedAt")){
                let data3 = data.returnedAt;
                const _errs5 = errors;
                if(errors === _errs5){
                  if(errors === _errs5){
                    if(typeof data3 === "string"){
                      if(!(formats2.validate(data3))){
                        validate60.errors = [{instancePath:instancePath+"/returnedAt",schemaPath:"#/properties/returnedAt/format",keyword:"format",params:{format: "date-time"},message:"must match format \""+"date-time"+"\""}];
                        return false;
                      }
                    }
                    else {
                      validate60.errors = [{instancePath:instancePath+"/returnedAt",schemaPath:"#/properties/returnedAt/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                      return false;
                    }
                  }
                }
                var valid0 = _errs5 === errors;
              }
              else {
                var valid0 = true;
              }
              if(valid0){
                if(data.condition !== undefined && func0.call(data, "condition")){
                  let data4 = data.condition;
                  const _errs7 = errors;
                  if(typeof data4 !== "string"){
                    validate60.errors = [{instancePath:instancePath+"/condition",schemaPath:"#/properties/condition/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                    return false;
                  }
                  if(!(((data4 === "good") || (data4 === "worn")) || (data4 === "damaged"))){
                    validate60.errors = [{instancePath:instancePath+"/condition",schemaPath:"#/properties/condition/enum",keyword:"enum",params:{allowedValues: schema24.properties.condition.enum},message:"must be equal to one of the allowed values"}];
                    return false;
                  }
                  var valid0 = _errs7 === errors;
                }
                else {
                  var valid0 = true;
                }
                if(valid0){
                  if(data.lateFee !== undefined && func0.call(data, "lateFee")){
                    const _errs9 = errors;
                    if(!(validate63(data.lateFee, {instancePath:instancePath+"/lateFee",parentData:data,parentDataProperty:"lateFee",rootData,dynamicAnchors}))){
                      vErrors = vErrors === null ? validate63.errors : vErrors.concat(validate63.errors);
                      errors = vErrors.length;
                    }
                    var valid0 = _errs9 === errors;
                  }
                  else {
                    var valid0 = true;
                  }
                }
              }
            }
          }
        }
      }
    }
    else {
      validate60.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"}];
      return false;
    }
  }
  validate60.errors = vErrors;
  return errors === 0;
}
validate60.evaluated = {"props":{"bookId":true,"copyId":true,"memberId":true,"returnedAt":true,"condition":true,"lateFee":true},"dynamicProps":false,"dynamicItems":false};

export const validateDueDateReminderPayload = validate65;
const schema26 = {"type":"object","required":["memberId","loans"],"properties":{"memberId":{"$ref":"#/$defs/MemberId"},"loans":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/DueDateReminderPayloadLoansItem"}}}};
const schema27 = {"type":"object","required":["bookId","dueAt"],"properties":{"bookId":{"$ref":"#/$defs/BookId"},"title":{"type":"string"},"dueAt":{"type":"string","format":"date-time"}}};

function validate67(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate67.evaluated;
  if(evaluated0.dynamicProps){
    evaluated0.props = undefined;
  }
  if(evaluated0.dynamicItems){
    evaluated0.items = undefined;
  }
  if(errors === 0){
    if(data && typeof data == "object" && !Array.isArray(data)){
      let missing0;
      if((((data.bookId === undefined) || (!(func0.call(data, "bookId")))) && (missing0 = "bookId")) || (((data.dueAt === undefined) || (!(func0.call(data, "dueAt")))) && (missing0 = "dueAt"))){
        validate67.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0},message:"must have required property '"+missing0+"'"}];
        return false;
      }
      else {
        if(data.bookId !== undefined && func0.call(data, "bookId")){
          const _errs1 = errors;
          if(!(validate54(data.bookId, {instancePath:instancePath+"/bookId",parentData:data,parentDataProperty:"bookId",rootData,dynamicAnchors}))){
            vErrors = vErrors === null ? validate54.errors : vErrors.concat(validate54.errors);
            errors = vErrors.length;
          }
          var valid0 = _errs1 === errors;
        }
        else {
          var valid0 = true;
        }
        if(valid0){
          if(data.title !== undefined && func0.call(data, "title")){
            const _errs2 = errors;
            if(typeof data.title !== "string"){
              validate67.errors = [{instancePath:instancePath+"/title",schemaPath:"#/properties/title/type",keyword:"type",params:{type: "string"},message:"must be string"}];
              return false;
            }
            var valid0 = _errs2 === errors;
          }
          else {
            var valid0 = true;
          }
          if(valid0){
            if(data.dueAt !== undefined && func0.call(data, "dueAt")){
              let data2 = data.dueAt;
              const _errs4 = errors;
              if(errors === _errs4){
                if(errors === _errs4){
                  if(typeof data2 === "string"){
                    if(!(formats2.validate(data2))){
                      validate67.errors = [{instancePath:instancePath+"/dueAt",schemaPath:"#/properties/dueAt/format",keyword:"format",params:{format: "date-time"},message:"must match format \""+"date-time"+"\""}];
                      return false;
                    }
                  }
                  else {
                    validate67.errors = [{instancePath:instancePath+"/dueAt",schemaPath:"#/properties/dueAt/type",keyword:"type",params:{type: "string"},message:"must be string"}];
                    return false;
                  }
                }
              }
              var valid0 = _errs4 === errors;
            }
            else {
              var valid0 = true;
            }
          }
        }
      }
    }
    else {
      validate67.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"}];
      return false;
    }
  }
  validate67.errors = vErrors;
  return errors === 0;
}
validate67.evaluated = {"props":{"bookId":true,"title":true,"dueAt":true},"dynamicProps":false,"dynamicItems":false};

function validate65(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate65.evaluated;
  if(evaluated0.dynamicProps){
    evaluated0.props = undefined;
  }
  if(evaluated0.dynamicItems){
    evaluated0.items = undefined;
  }
  if(errors === 0){
    if(data && typeof data == "object" && !Array.isArray(data)){
      let missing0;
      if((((data.memberId === undefined) || (!(func0.call(data, "memberId")))) && (missing0 = "memberId")) || (((data.loans === undefined) || (!(func0.call(data, "loans")))) && (missing0 = "loans"))){
        validate65.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0},message:"must have required property '"+missing0+"'"}];
        return false;
      }
      else {
        if(data.memberId !== undefined && func0.call(data, "memberId")){
          const _errs1 = errors;
          if(!(validate57(data.memberId, {instancePath:instancePath+"/memberId",parentData:data,parentDataProperty:"memberId",rootData,dynamicAnchors}))){
            vErrors = vErrors === null ? validate57.errors : vErrors.concat(validate57.errors);
            errors = vErrors.length;
          }
          var valid0 = _errs1 === errors;
        }
        else {
          var valid0 = true;
        }
        if(valid0){
          if(data.loans !== undefined && func0.call(data, "loans")){
            let data1 = data.loans;
            const _errs2 = errors;
            if(errors === _errs2){
              if(Array.isArray(data1)){
                if(data1.length < 1){
                  validate65.errors = [{instancePath:instancePath+"/loans",schemaPath:"#/properties/loans/minItems",keyword:"minItems",params:{limit: 1},message:"must NOT have fewer than 1 items"}];
                  return false;
                }
                else {
                  var valid1 = true;
                  const len0 = data1.length;
                  for(let i0=0; i0<len0; i0++){
                    const _errs4 = errors;
                    if(!(validate67(data1[i0], {instancePath:instancePath+"/loans/" + i0,parentData:data1,parentDataProperty:i0,rootData,dynamicAnchors}))){
                      vErrors = vErrors === null ? validate67.errors : vErrors.concat(validate67.errors);
                      errors = vErrors.length;
                    }
                    var valid1 = _errs4 === errors;
                    if(!valid1){
                      break;
                    }
                  }
                }
              }
              else {
                validate65.errors = [{instancePath:instancePath+"/loans",schemaPath:"#/properties/loans/type",keyword:"type",params:{type: "array"},message:"must be array"}];
                return false;
              }
            }
            var valid0 = _errs2 === errors;
          }
          else {
            var valid0 = true;
          }
        }
      }
    }
    else {
      validate65.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"}];
      return false;
    }
  }
  validate65.errors = vErrors;
  return errors === 0;
}
validate65.evaluated = {"props":{"memberId":true,"loans":true},"dynamicProps":false,"dynamicItems":false};

export const validateEventHeaders = validate70;
const schema28 = {"type":"object","properties":{"correlationId":{"type":"string","description":"Id of the request that caused the event."}}};

function validate70(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate70.evaluated;
  if(evaluated0.dynamicProps){
    evaluated0.props = undefined;
  }
  if(evaluated0.dynamicItems){
    evaluated0.items = undefined;
  }
  if(errors === 0){
    if(data && typeof data == "object" && !Array.isArray(data)){
      if(data.correlationId !== undefined && func0.call(data, "correlationId")){
        if(typeof data.correlationId !== "string"){
          validate70.errors = [{instancePath:instancePath+"/correlationId",schemaPath:"#/properties/correlationId/type",keyword:"type",params:{type: "string"},message:"must be string"}];
          return false;
        }
      }
    }
    else {
      validate70.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"}];
      return false;
    }
  }
  validate70.errors = vErrors;
  return errors === 0;
}
validate70.evaluated = {"props":{"correlationId":true},"dynamicProps":false,"dynamicItems":false};
